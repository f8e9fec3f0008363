from django.apps import AppConfig


class InteropConfig(AppConfig):
    name = "memadmin.interop"

    def ready(self) -> None:
        from memadmin.memories import store_gateway
        from memadmin.taxonomy import store_hooks

        from .criteria_writes import CRITERIA_GATEWAY
        from .store_writes import GATEWAY

        store_gateway.register(GATEWAY)
        store_hooks.register(CRITERIA_GATEWAY)
