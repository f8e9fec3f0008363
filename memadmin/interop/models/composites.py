"""What memadmin remembers about composites published to a store.

Publishing is per store and opt-in (`StoreComposites`); each composite of a published store
is bound to its row in the store's `composites` table (`StoreComposite`), with the digest of
what the store held when memadmin last wrote or read it: the base of the three-way sync.
"""

from django.db import models


class StoreComposites(models.Model):
    """Whether memadmin writes composites to a store, and what it found there."""

    store = models.OneToOneField(
        "interop.UpstreamStore", on_delete=models.CASCADE, related_name="composites_publishing"
    )
    published = models.BooleanField(default=False)
    changed_at = models.BigIntegerField(help_text="When publishing was turned on or off (ms).")
    changed_by = models.CharField(max_length=150)
    backup_path = models.CharField(
        max_length=1000, blank=True, default="", help_text="The backup made before a drop."
    )

    def __str__(self) -> str:
        return f"{self.store_id}: {'published' if self.published else 'not published'}"


class StoreComposite(models.Model):
    """A memadmin composite and its row in the store's `composites` table."""

    composite = models.OneToOneField(
        "composites.Composite", on_delete=models.CASCADE, related_name="store_row"
    )
    store = models.ForeignKey(
        "interop.UpstreamStore", on_delete=models.CASCADE, related_name="store_composites"
    )
    upstream_id = models.BigIntegerField()
    digest = models.CharField(max_length=64)
    read_at = models.BigIntegerField(help_text="When the store's row was read or written (ms).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["store", "upstream_id"], name="store_composite_once"),
        ]

    def __str__(self) -> str:
        return f"{self.composite_id} <-> {self.store_id}:{self.upstream_id}"
