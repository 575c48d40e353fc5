"""The tournament hall: stations publish their journals over MQTT, one hub gathers every board.

Its own package because it sits above runtime (it wires many recordings together) and is the
only part of xqtrack that speaks MQTT. Topic tree: hall/topics.py.
"""
