"""Sub-commands of `xqtrack`, one module per part; each exposes `register(subparsers)`."""
