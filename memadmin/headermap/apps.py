from django.apps import AppConfig


class HeaderMapConfig(AppConfig):
    name = "memadmin.headermap"
