"""One planner module per scenario family. Each exposes `plan(p: Planner) -> Plan`."""
