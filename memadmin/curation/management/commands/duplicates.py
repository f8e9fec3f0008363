"""`manage.py duplicates --project P [--json] [--threshold T]`: a project's near-duplicates."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memadmin.curation.analysis import (
    CANDIDATE_FLOOR,
    EMBEDDING_THRESHOLD,
    LEXICAL_THRESHOLD,
    analysis_refresh,
    is_current,
)
from memadmin.curation.models import Analysis
from memadmin.curation.selectors import (
    Thresholds,
    alike_pairs,
    clusters_json,
    duplicate_clusters,
)
from memadmin.curation.tasks import embeddings_refresh
from memadmin.projects.models import Project


def project_named(identity: str) -> Project:
    """Return the project with this identity, or raise CommandError."""
    try:
        return Project.objects.get(identity=identity)
    except Project.DoesNotExist:
        raise CommandError(f"No project {identity!r}.") from None


class Command(BaseCommand):
    help = (
        "List a project's clusters of near-duplicate memories, groups in which every two say "
        "one fact twice: the same text in two categories (exact), the same content words "
        "(lexical, TF-IDF cosine) and, where the store holds embeddings, similar vectors "
        "(embedding cosine). Variants (the same sentence about another service, place, "
        "number, path or version, or negated) are two facts: never listed, only counted."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="the project's identity (git:...)")
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.add_argument(
            "--threshold",
            type=float,
            default=LEXICAL_THRESHOLD,
            help=f"lexical similarity a pair needs, {CANDIDATE_FLOOR['lexical']} to 1 "
            f"(default {LEXICAL_THRESHOLD})",
        )
        parser.add_argument(
            "--embedding-threshold",
            type=float,
            default=EMBEDDING_THRESHOLD,
            help=f"embedding similarity a pair needs, {CANDIDATE_FLOOR['embedding']} to 1 "
            f"(default {EMBEDDING_THRESHOLD})",
        )
        parser.add_argument(
            "--refresh",
            action="store_true",
            help="compute again even if the kept result is current",
        )

    def handle(self, *args, **options):
        project = project_named(options["project"])
        try:
            thresholds = Thresholds(
                lexical=options["threshold"], embedding=options["embedding_threshold"]
            )
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        notices = []
        analysis = Analysis.objects.filter(project=project).first()
        if options["refresh"] or not is_current(analysis, project):
            notices = embeddings_refresh(project)
            analysis = analysis_refresh(project)
        for notice in notices + analysis.notices:
            self.stderr.write(notice)
        clusters = duplicate_clusters(analysis, thresholds)
        alike = len(alike_pairs(analysis, thresholds))
        if alike:
            self.stderr.write(
                f"{alike} alike pairs not listed: variants, the same sentence about different "
                "things (see the near-duplicates page)."
            )
        if options["json"]:
            self.stdout.write(json.dumps(clusters_json(project, clusters), indent=2))
            return
        for number, cluster in enumerate(clusters, start=1):
            ids = " ".join(f"#{pk}" for pk in cluster.members)
            self.stdout.write(f"{number}. {cluster.kind} {cluster.similarity:.2f}: {ids}")
        self.stderr.write(
            f"{len(clusters)} clusters among {analysis.memories} memories of {project.identity} "
            f"(lexical >= {thresholds.lexical}, embedding >= {thresholds.embedding})."
        )
