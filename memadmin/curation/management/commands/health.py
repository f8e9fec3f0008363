"""`manage.py health --project P [--json]`: what in a project needs a curator."""

import json

from django.core.management.base import BaseCommand

from memadmin.curation.analysis import analysis_refresh, is_current
from memadmin.curation.health import KINDS, health_report
from memadmin.curation.models import Analysis
from memadmin.curation.tasks import embeddings_refresh

from .duplicates import project_named


class Command(BaseCommand):
    help = (
        "List a project's health queue, what costs the injection most first: memories left "
        "out of the injection although permanent or important, stale headers, categories no "
        "plugin reads, facts said twice, expiring memories and importance to set; many "
        "memories with one problem are one entry. Each entry names the page that resolves it."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="the project's identity (git:...)")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, **options):
        project = project_named(options["project"])
        analysis = Analysis.objects.filter(project=project).first()
        if not is_current(analysis, project):
            embeddings_refresh(project)
            analysis = analysis_refresh(project)
        report = health_report(project, analysis)
        if options["json"]:
            self.stdout.write(json.dumps(report.to_json(), indent=2))
            return
        for entry in report.entries:
            self.stdout.write(f"{entry.label}\t{entry.message}\t{entry.action}")
        counts = ", ".join(f"{n} {KINDS[kind].lower()}" for kind, n in report.counts().items())
        self.stderr.write(f"{len(report.entries)} entries for {project.identity}: {counts}.")
