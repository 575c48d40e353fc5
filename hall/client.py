"""One place that makes paho-mqtt clients, so stations and the hub connect the same way."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .brokerurl import BrokerURL


@dataclass(frozen=True)
class ClientConfig:
    """Connection settings shared by stations and the hub (seconds)."""

    keepalive_s: int = 10            # a dead link is noticed within ~1.5x this
    reconnect_min_s: int = 1         # first retry after a lost link
    reconnect_max_s: int = 4         # retries never wait longer than this (a station back within seconds)
    max_inflight: int = 200          # QoS 1 messages on the wire without their PUBACK


def make_client(url: BrokerURL, client_id: str, *, clean_session: bool, ca_file: str | None = None,
                config: ClientConfig | None = None) -> Any:
    """A paho client for `url` (MQTT 3.1.1, persistent session unless `clean_session`), not yet connected."""
    import paho.mqtt.client as mqtt

    cfg = config or ClientConfig()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                         protocol=mqtt.MQTTv311)
    if url.username:
        client.username_pw_set(url.username, url.password)
    if ca_file and not url.tls:
        raise ValueError("--ca goes with an mqtts:// broker URL")
    if url.tls:
        if ca_file and not Path(ca_file).is_file():
            raise ValueError(f"--ca {ca_file!r}: no such CA certificate file")
        client.tls_set(ca_certs=ca_file)     # None: the system's CA store
    client.reconnect_delay_set(cfg.reconnect_min_s, cfg.reconnect_max_s)
    client.max_inflight_messages_set(cfg.max_inflight)
    client.max_queued_messages_set(0)
    return client
