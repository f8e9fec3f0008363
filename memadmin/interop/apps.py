from django.apps import AppConfig


class InteropConfig(AppConfig):
    name = "memadmin.interop"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from memadmin.composites import store_gateway as composite_gateway
        from memadmin.memories import store_gateway
        from memadmin.taxonomy import store_hooks

        from .composites.publish import GATEWAY as COMPOSITE_GATEWAY
        from .write_through.criteria_writes import CRITERIA_GATEWAY
        from .write_through.store_writes import GATEWAY
        from .writing.write_gate import install

        store_gateway.register(GATEWAY)
        store_hooks.register(CRITERIA_GATEWAY)
        composite_gateway.register(COMPOSITE_GATEWAY)
        # Each SQLite connection tells a running sync when it waits for the write lock.
        connection_created.connect(install, dispatch_uid="memadmin.interop.writing.write_gate")
