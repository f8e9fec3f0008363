"""The ledger's own table: token counts remembered by counter and text digest."""

from django.db import models


class TokenCount(models.Model):
    """How many tokens a counter finds in one exact text, keyed by the text's SHA-256.

    A cache, not a record: any row can be dropped and is counted again on the next
    preview. Nothing in it is audited.
    """

    counter = models.CharField(max_length=20)
    digest = models.CharField(max_length=64)
    count = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["counter", "digest"], name="token_count_once"),
        ]

    def __str__(self) -> str:
        return f"{self.counter}:{self.digest[:12]}… = {self.count}"
