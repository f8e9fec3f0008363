"""The header map's own table: when each header was last brought in line with its details."""

from django.db import models


class HeaderSync(models.Model):
    """The last time someone confirmed a header's summary matches its details.

    A header is stale when one of its details was updated after `synced_at` (epoch ms), or
    its set of details changed since (see `stale_selectors`); a header with no row counts
    from its own creation. Written only by
    `headermap.stale_services.header_mark_synced` and the fragmentation service.
    """

    header = models.OneToOneField(
        "memories.Memory", on_delete=models.CASCADE, related_name="header_sync"
    )
    synced_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    synced_by = models.CharField(max_length=150)

    class Meta:
        verbose_name = "header sync"

    def __str__(self) -> str:
        return f"header {self.header_id} synced at {self.synced_at}"
