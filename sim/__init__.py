"""xqtrack: sim part."""
