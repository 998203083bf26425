"""Computed slots for the music exchanges (music.yaml names them under ``derive`` / ``sample``)."""

from __future__ import annotations

import math

from ..engine import Slots, number_words
from ..loader import BankData


def music_playlist(s: Slots, data: BankData) -> Slots:
    genre, mood = s["genre"]  # type: ignore[misc]
    act, minutes, feel, want = s["activity"]  # type: ignore[misc]
    songs = round(minutes / 3.5)
    hours, mins = divmod(minutes, 60)
    length = f"{mins} minutes" if hours == 0 else ("an hour" if hours == 1 else f"{hours} hours") + (f" and {mins} minutes" if mins else "")
    fit = "a perfect match" if mood == want else "a fun twist" if want == "upbeat" or mood == "upbeat" else "a nice fit"
    bpm = {"energetic": 160, "upbeat": 120, "relaxed": 95, "mellow": 85, "calm": 70}[want]
    return {
        "genre": genre,
        "mood": mood,
        "activity": act,
        "feel": feel,
        "songs": songs,
        "length": length,
        "fit": fit,
        "bpm": bpm,
        "want": want,
    }


def music_learn(s: Slots, data: BankData) -> Slots:
    ins = data.tables["instruments"][str(s["instrument"])]
    m = int(s["minutes"])  # type: ignore[arg-type]
    weekly = m * 7   # "10 minutes a day adds up to about 60 minutes a week" counted six days
    weeks = 4 if m >= 30 else 6 if m >= 20 else 8
    return {
        "first": ins.first,
        "song_goal": ins.song_goal,
        "pitfall": ins.pitfall,
        "weekly": weekly,
        "warm": max(3, m // 5),
        "goal_weeks": weeks,
        "goal_weeks_w": number_words(weeks),
        "minutes_w": number_words(m),
    }


def music_albums(s: Slots, data: BankData) -> Slots:
    a = data.tables["albums"][str(s["style"])].albums
    hours = int(s["hours"])  # type: ignore[arg-type]
    return {"al1": a[0], "al2": a[1], "al3": a[2], "albums_n": max(1, hours * 60 // 45), "hours_w": number_words(hours)}


def music_tempo(s: Slots, data: BankData) -> Slots:
    target = int(s["target"])  # type: ignore[arg-type]
    step = int(s["step"])  # type: ignore[arg-type]
    start = int(round(target * 0.6 / 5) * 5)
    days = math.ceil((target - start) / step)
    return {"start": start, "days": days, "days_w": number_words(days), "mid": start + step * (days // 2)}


def music_care(s: Slots, data: BankData) -> Slots:
    row = data.tables["instrument_care"][str(s["instrument"])]
    return {"clean": row.clean, "store": row.store, "service": row.service}


FUNCTIONS = (music_playlist, music_learn, music_albums, music_tempo, music_care,)
