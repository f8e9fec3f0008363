from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "memadmin.web"
    label = "web"
