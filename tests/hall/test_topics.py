"""The topic tree and broker URLs: what stations, hub and ACL agree on."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hall import topics
from hall.broker import acl_text
from hall.brokerurl import BrokerURL, parse_broker_url


@given(board=st.integers(1, 10_000),
       name=st.from_regex(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,20}\.(jpg|webm|json)", fullmatch=True))
def test_every_board_topic_reads_back_as_its_board_and_kind(board, name):
    assert topics.parse_board_topic(topics.event_topic(board)) == topics.BoardTopic(board, "event")
    assert topics.parse_board_topic(topics.state_topic(board)) == topics.BoardTopic(board, "state")
    assert topics.parse_board_topic(topics.status_topic(board)) == topics.BoardTopic(board, "status")
    assert topics.parse_board_topic(topics.evidence_topic(board, name)) == topics.BoardTopic(board, "evidence", name)
    assert topics.command_topic(board) == f"xqtrack/command/board/{board}"


@pytest.mark.parametrize("topic", ["xqtrack/board/0/event", "xqtrack/board/x/event", "xqtrack/board/1/other",
                                   "xqtrack/command/board/1", "other/board/1/event", "xqtrack/board/1/event/x"])
def test_topics_outside_the_tree_are_not_taken_for_a_board(topic):
    assert topics.parse_board_topic(topic) is None


@pytest.mark.parametrize("bad", [0, -3, True, "2"])
def test_a_board_number_must_be_a_whole_number_from_one(bad):
    with pytest.raises(ValueError, match="board number"):
        topics.event_topic(bad)


def test_broker_urls_give_host_port_user_password_and_tls():
    assert parse_broker_url("mqtt://station-3:p%40ss@10.0.0.2:1884") == BrokerURL("10.0.0.2", 1884, "station-3",
                                                                                  "p@ss", False)
    assert parse_broker_url("mqtts://hall.example") == BrokerURL("hall.example", 8883, None, None, True)
    assert parse_broker_url("mqtt://h").port == 1883
    assert "p@ss" not in parse_broker_url("mqtt://u:p%40ss@h:1").shown()


@pytest.mark.parametrize("bad, words", [("http://h:1", "mqtt:// or mqtts://"), ("mqtt://:1883", "no host"),
                                        ("mqtt://h:99999", "--publish"), ("mqtt://h:1/topic", "no path")])
def test_a_bad_broker_url_is_one_error_naming_the_option(bad, words):
    with pytest.raises(ValueError, match=words):
        parse_broker_url(bad, "--publish")


def test_the_acl_lets_station_n_write_only_under_board_n_and_the_hub_only_read_and_command():
    text = acl_text((1, 2))
    blocks = {b.split("\n")[0]: b for b in ("\n" + text).split("\nuser ")[1:]}
    assert blocks["hub"].splitlines()[1:3] == ["topic read xqtrack/board/#", "topic write xqtrack/command/board/#"]
    assert [ln for ln in blocks["station-2"].splitlines() if ln.startswith("topic")] == [
        "topic write xqtrack/board/2/#", "topic read xqtrack/command/board/2"]
