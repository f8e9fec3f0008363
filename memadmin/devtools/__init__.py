"""Tools for the people who work on memadmin; nothing here is imported by the dashboard."""
