"""The web foundation every app's pages stand on: addresses and pagination, the htmx request
type, the shared form fields (whole numbers, ids, hidden versions and the page to go back to,
stored values today's choices lack) and the service-backed admin. Below every app; it imports
only Django and the core."""
