from django.apps import AppConfig


class DevtoolsConfig(AppConfig):
    """Tools for people working on memadmin: the demo store (`manage.py demo`), mutation runs."""

    name = "memadmin.devtools"
    verbose_name = "Developer tools"
