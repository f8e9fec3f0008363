from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "memadmin.audit"
    verbose_name = "Audit trail"

    def ready(self) -> None:
        from . import history  # noqa: F401  (connects the historical-record hook)
