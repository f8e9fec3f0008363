"""A realistic, seeded demo store (`manage.py demo`)."""
