from django.apps import AppConfig


class InteropConfig(AppConfig):
    name = "memadmin.interop"
