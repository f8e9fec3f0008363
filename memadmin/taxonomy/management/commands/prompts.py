"""`manage.py prompts render --site historian|curate|tool --project P` and `prompts hash`.

The texts are assembled from the project's categories in the store, exactly as the preview
pages show them.
"""

from django.core.management.base import BaseCommand, CommandError

from memadmin.core.prompts import CURATE, HISTORIAN, TOOL_DESCRIPTION
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import current_surface_hash, prompt_texts

SITE_CHOICES = {"historian": HISTORIAN, "curate": CURATE, "tool": TOOL_DESCRIPTION}


class Command(BaseCommand):
    help = "Print a prompt text assembled from a project's criteria, or its surface hash."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        render = sub.add_parser("render", help="print one of the three texts")
        render.add_argument("--site", required=True, choices=sorted(SITE_CHOICES))
        render.add_argument("--project", required=True, help="the project's identity (git:...)")
        digest = sub.add_parser("hash", help="print the prompt-surface hash")
        digest.add_argument("--project", required=True, help="the project's identity (git:...)")

    def handle(self, *args, **options):
        identity = options["project"]
        try:
            project = Project.objects.select_related("pack").get(identity=identity)
        except Project.DoesNotExist as missing:
            raise CommandError(f"no project {identity}") from missing
        if project.pack_id is None:
            raise CommandError(
                f"{identity} runs no pack; install one with `manage.py pack install`"
            )
        if options["action"] == "hash":
            self.stdout.write(current_surface_hash(project))
            return
        self.stdout.write(prompt_texts(project)[SITE_CHOICES[options["site"]]], ending="")
