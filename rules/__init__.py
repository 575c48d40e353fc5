"""xqtrack: rules part."""
