from django.apps import AppConfig


class HistoryConfig(AppConfig):
    """Timelines, versions, compare, revert and the audit log's pages, above what they show."""

    name = "memadmin.history"
    verbose_name = "History"
