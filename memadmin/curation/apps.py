from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "memadmin.curation"
