"""xqtrack: firmware_bridge part."""
