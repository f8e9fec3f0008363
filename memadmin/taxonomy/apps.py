from django.apps import AppConfig


class TaxonomyConfig(AppConfig):
    name = "memadmin.taxonomy"
    verbose_name = "Taxonomy (policy blocks)"
