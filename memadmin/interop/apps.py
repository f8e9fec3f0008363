from django.apps import AppConfig


class InteropConfig(AppConfig):
    name = "memadmin.interop"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from .writing.write_gate import install

        # Each SQLite connection tells a running sync when it waits for the write lock.
        connection_created.connect(install, dispatch_uid="memadmin.interop.writing.write_gate")
