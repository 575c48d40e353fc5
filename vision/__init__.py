"""xqtrack: vision part."""
