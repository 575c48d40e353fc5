"""xqtrack: board part."""
