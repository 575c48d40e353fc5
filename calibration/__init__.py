"""xqtrack: calibration part."""
