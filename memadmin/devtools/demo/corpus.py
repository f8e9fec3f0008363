"""Seeded text for the demo store: realistic memories of an ops-heavy project and a plugin project."""

import random

SERVICES = [
    "api-gateway",
    "billing-worker",
    "search-indexer",
    "auth-service",
    "ingest-pipeline",
    "notification-hub",
    "report-builder",
    "scheduler",
    "edge-cache",
    "feature-flags",
    "media-transcoder",
    "ledger-sync",
    "audit-writer",
    "metrics-agent",
    "backup-runner",
]
ENVIRONMENTS = ["production", "staging", "canary", "the dev cluster", "the DR region"]
TOOLS = ["kubectl", "helm", "terraform", "just", "ansible", "psql", "vault", "argocd"]

OPS_RULE_TEMPLATES = [
    "Before restarting {service} in {env}, drain its queue with `just drain {service}` and wait for zero in-flight jobs.",
    "Deploy {service} only through `just deploy {service} <env>`; never apply its manifests with {tool} by hand.",
    "Every schema change to {service} gets a dry run against the staging snapshot before it reaches {env}.",
    "Page the on-call owner of {service} before scaling it below two replicas in {env}.",
    "Rotate the credentials of {service} with `vault write` and restart it within the same change window.",
    "Roll back {service} by re-deploying the previous tag, never by editing the live deployment in {env}.",
    "Tag every {service} release with the ticket id so the changelog job can pick it up.",
    "Run the smoke suite for {service} after each deploy to {env} and attach the result to the ticket.",
    "Freeze deploys of {service} to {env} during the Friday 16:00-Monday 08:00 window unless an incident needs it.",
    "Keep {service}'s alert thresholds in the monitoring repo; changes go through review like code.",
    "When {service} fails its health check twice in {env}, cordon the node before investigating.",
    "Use {tool} with the read-only context when inspecting {service} in {env}; switch context only to change it.",
    "Check the error budget of {service} before enabling a new feature flag in {env}.",
    "Archive {service} logs older than 30 days to cold storage; never delete them from {env} directly.",
    "Announce maintenance of {service} in #ops at least one hour before touching {env}.",
    "Write a one-line entry in the change log for every manual action on {service} in {env}.",
]
ENV_TEMPLATES = [
    "{service} runs with {n} replicas in {env}, behind the internal load balancer.",
    "{service} in {env} reads from the primary database and writes through the outbox table.",
    "{env} hosts {service} on nodes of the c6i.2xlarge class with local NVMe scratch space.",
    "{service} ships its logs through Vector to the Loki instance of {env}.",
    "{service} in {env} sits behind the edge-cache; cache misses go to the origin pool.",
]
CONFIG_TEMPLATES = [
    "{service} request timeout: {n}s (chosen to stay under the gateway's 30s limit).",
    "{service} worker concurrency: {n} per pod; higher values starve the database pool.",
    "{service} retry policy: {n} attempts with exponential backoff starting at 200 ms.",
    "{service} keeps {n} days of job history before the cleanup task removes it.",
    "{service} database pool size: {n} connections per replica.",
]
INCIDENT_TEMPLATES = [
    "{date}: {service} in {env} stalled because its disk filled with core dumps; fixed by capping dump size.",
    "{date}: a bad config push made {service} reject all tokens for 14 minutes; rollback restored it.",
    "{date}: {service} leaked connections after a driver upgrade; pinned the driver and filed upstream.",
    "{date}: DNS TTL changes left {service} pointing at the old cluster in {env} for an hour.",
]
RESEARCH_TEMPLATES = [
    "Benchmarked {service} on ARM nodes: 18% cheaper at equal p99 latency; migration not yet planned.",
    "Evaluated moving {service} queues to NATS JetStream: simpler ops, but no exactly-once semantics.",
    "Compared compression codecs for {service} payloads: zstd level 3 gives the best size/CPU trade-off.",
    "Tested {service} under 3x peak load in staging: the database, not the service, saturates first.",
]
MODEL_TEMPLATES = [
    "The summariser model truncates inputs over 32k tokens silently; chunk {service} logs before sending.",
    "Embedding model v3 scores German text noticeably lower; keep {service} queries in English.",
    "The classifier returns importance 50 for most inputs; do not rely on it to rank {service} alerts.",
    "Model responses for {service} tickets are more accurate when the runbook excerpt comes first.",
]

MC_TEMPLATES = {
    "PROJECT_RULES": [
        "Run `bun test` before every commit touching {area}.",
        "Use scripts/release.sh VERSION for releases of {area}.",
        "Never edit generated files under {area}/dist; change the source and rebuild.",
    ],
    "ARCHITECTURE": [
        "{area} talks to the store only through the repository layer, so the schema can change in one place.",
        "{area} keeps its state in SQLite in WAL mode; readers never block the writer.",
    ],
    "CONSTRAINTS": [
        "MCP sends numeric parameters as strings; {area} must coerce them.",
        "The host app kills tool calls after 120 s; long work in {area} must be chunked.",
    ],
    "CONFIG_VALUES": [
        "{area} injection budget default: 4000 tokens.",
        "{area} compaction threshold: 80% of the context window.",
    ],
    "NAMING": [
        "Prefix every {area} tool with ctx_; the old mc_ prefix is retired.",
        "Call the background summariser the historian in {area}, never the compactor.",
    ],
    "WORKFLOW_RULES": ["Open a draft PR before starting work on {area}."],
    "USER_PREFERENCES": ["The user prefers short commit messages for {area} changes."],
    "KNOWN_ISSUES": ["{area}: the FTS index can lag behind after a bulk import; rebuild it."],
    "ENVIRONMENT": ["{area} is developed on macOS and tested on Linux in CI."],
    "CONFIG_DEFAULTS": ["{area} logs at info level by default."],
    "ARCHITECTURE_DECISIONS": ["{area} uses a single SQLite file instead of a server database."],
    "USER_DIRECTIVES": ["Always ask before deleting anything in {area}."],
}
MC_AREAS = [
    "the plugin",
    "the dreamer",
    "the historian",
    "the desktop app",
    "the CLI",
    "the tool layer",
]


def fill(template: str, rng: random.Random) -> str:
    """Return the template filled with seeded choices."""
    return template.format(
        service=rng.choice(SERVICES),
        env=rng.choice(ENVIRONMENTS),
        tool=rng.choice(TOOLS),
        n=rng.choice([2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 45, 60, 90]),
        date=f"2026-{rng.randint(8, 11):02d}-{rng.randint(1, 28):02d}",
        area=rng.choice(MC_AREAS),
    )


SOPS = {
    "Release a service": [
        "Open the release ticket and link the changelog entry.",
        "Build the image with `just build <service>` and push it through CI, never by hand.",
        "Deploy to staging with `just deploy <service> staging` and run the smoke suite.",
        "Promote to canary for 30 minutes and watch the error budget dashboard.",
        "Deploy to production with `just deploy <service> production`.",
        "Close the ticket with the smoke-suite result and the deployed tag.",
    ],
    "Restore a database from backup": [
        "Declare an incident and freeze writes to the affected service.",
        "Pick the latest verified snapshot from the backup-runner catalogue.",
        "Restore it into a fresh instance with `just restore <snapshot> <instance>`.",
        "Run the consistency checks and compare row counts against the last report.",
        "Switch the service's connection secret to the new instance and restart it.",
    ],
    "Rotate credentials": [
        "Generate the new secret with `vault write -f secret/rotate/<service>`.",
        "Deploy the service with both old and new secrets accepted.",
        "Switch clients to the new secret and watch authentication errors for 15 minutes.",
        "Revoke the old secret and record the rotation date.",
    ],
    "Drain and reboot a node": [
        "Cordon the node so no new pods land on it.",
        "Drain it with `kubectl drain --ignore-daemonsets --delete-emptydir-data`.",
        "Reboot and wait for the kubelet to report Ready.",
        "Uncordon the node and check that daemonsets are running on it.",
    ],
}
DOSSIERS = {
    "Edge cache settings": [
        "Edge cache TTL for API responses: 60 s.",
        "Edge cache TTL for static assets: 7 days, busted by content hash.",
        "Edge cache purge needs the purge token from vault path secret/edge/purge.",
        "Edge cache keeps stale content for 5 minutes when the origin is down.",
    ],
    "Database pool settings": [
        "Primary database max connections: 400.",
        "Every service pool is capped at 20 connections per replica.",
        "PgBouncer runs in transaction mode; session features such as advisory locks are not available.",
    ],
}


# Long memories, the kind fragmenting is for: a heading and steps, a dossier, a write-up.
LONG_MEMORIES = [
    (
        "OPS_RULES",
        "# Failover of the primary database\n"
        "1. Page the database on-call and announce the failover in #ops before touching anything.\n"
        "2. Freeze deploys for every service that writes to the primary; check the freeze took.\n"
        "3. Promote the replica in the DR region with the runbook's promote command.\n"
        "4. Point the connection pooler at the new primary and watch error rates for ten minutes.\n"
        "5. Rebuild the old primary as a replica, then lift the deploy freeze.",
    ),
    (
        "CONFIG_VALUES",
        "Edge cache settings, as tuned after the October load test:\n"
        "- default TTL: 300 s for HTML, 86,400 s for hashed static assets;\n"
        "- stale-while-revalidate: 60 s, so a slow origin never shows as an outage;\n"
        "- purge by surrogate key only; a full purge needs the platform lead's approval;\n"
        "- origin shield in the primary region; the DR region reads through it.",
    ),
    (
        "INCIDENTS",
        "2026-10-28: checkout latency doubled for forty minutes.\n\n"
        "The payment service's connection pool was sized for the old node count and starved "
        "after the autoscaler added nodes.\n\n"
        "Fixed by sizing the pool per node from the scheduler's count; a dashboard alert now "
        "fires when pool waits pass 50 ms.\n\n"
        "Follow-up: the capacity review checks pool sizes whenever node counts change.",
    ),
]
