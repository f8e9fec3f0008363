"""What curation computes about a project: its stored embeddings, duplicates and neighbours.

These rows are derived data, not records: each analysis replaces the last one for the
project, and emptying them costs one recomputation. `MemoryEmbedding` holds the vectors
read from the bound magic-context store (upstream's `memory_embeddings`), kept here so the
sync's own tables stay as they are.
"""

from django.db import models


class MemoryEmbedding(models.Model):
    """One memory's vector from one embedding model, as upstream stored it."""

    memory = models.ForeignKey(
        "memories.Memory", on_delete=models.CASCADE, related_name="embeddings"
    )
    model_id = models.CharField(max_length=200)
    dimensions = models.PositiveIntegerField()
    vector = models.BinaryField(help_text="float32, little-endian, as upstream stores it.")
    content_hash = models.CharField(
        max_length=32, help_text="The memory's normalized hash when the vector was read."
    )
    read_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "model_id"], name="embedding_once_per_model"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} · {self.model_id}"


class Analysis(models.Model):
    """A project's latest duplicate and neighbour analysis, and the state of the next one.

    `fingerprint` names the memories the result was computed from; the result is current
    while the project's fingerprint is the same. `pairs` holds every similar pair found,
    `[id, id, similarity, kind]` (clusters are made from them at the threshold asked for),
    and `themes` lists of ids, both in memadmin memory ids.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    project = models.OneToOneField(
        "projects.Project", on_delete=models.CASCADE, related_name="curation_analysis"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    requested_fingerprint = models.CharField(max_length=200, blank=True, default="")
    requested_at = models.BigIntegerField(null=True, blank=True)
    fingerprint = models.CharField(max_length=200, blank=True, default="")
    finished_at = models.BigIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    memories = models.PositiveIntegerField(default=0)
    model_id = models.CharField(max_length=200, blank=True, default="")
    pairs = models.JSONField(default=list, blank=True)
    themes = models.JSONField(default=list, blank=True)
    notices = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"{self.project_id} · {self.state}"


BLOCK_SIZE = 1000  # memories whose neighbours one RelatedBlock row holds


class RelatedBlock(models.Model):
    """The nearest others of the project's memories whose ids share `id // BLOCK_SIZE`.

    `neighbours` maps each memory id (as text) to `[[memory id, similarity, kind], ...]`,
    nearest first. A block, not a row per memory: keeping 100,000 memories' neighbours writes
    a hundred rows, and a memory page reads one.
    """

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    block = models.PositiveIntegerField()
    neighbours = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "block"], name="related_block_once"),
        ]

    def __str__(self) -> str:
        return f"{self.project_id} · block {self.block}"
