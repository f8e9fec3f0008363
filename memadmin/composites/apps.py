from django.apps import AppConfig


class CompositesConfig(AppConfig):
    name = "memadmin.composites"
    verbose_name = "Composites (relation blocks)"
