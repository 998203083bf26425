"""A scripted OpenAI-compatible chat-completions server on loopback, for the LLM writer's tests and
benchmarks/llm_writer.py: it answers valid replies for the family its prompt asks for (read from the
JSON schema in the system prompt), or a 429, a 5xx, a stall, malformed JSON or a 400 refusing
response_format on a schedule. It is a stand-in for vLLM / SGLang that needs no model.
"""
from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from schemas.language import language


def _valid_reply(system: str, user: str) -> dict[str, Any]:
    """A reply that passes the writer's checks for the family named in the prompt's JSON schema."""
    title = json.loads(system[system.index("{"):system.rindex("}") + 1])["title"]
    if title == "TurnTakingReply":
        n = int(re.search(r"Write (\d)\s+exchange", user).group(1))   # type: ignore[union-attr]
        ex = [{"user": "Could you help me plan dinner for tonight?",
               "assistant": ["Of course, happy to help.", "A simple pasta with greens is quick and filling."]},
              {"user": "And what should I cook tomorrow?",
               "assistant": ["Tomorrow, try a rice bowl with roasted vegetables.", "It keeps well for lunch too."]}]
        return {"exchanges": ex[:n]}
    if title == "BackchannelReply":
        return {"user": "How do I get better sleep?",
                "assistant": ["Keep a steady bedtime, even on weekends.", "Dim the lights, and put the phone away.",
                              "A cool room helps, and so does a short walk in the day."],
                "backchannels": ["mm-hmm", "right"]}
    if title in ("OtherDirectedReply", "BackgroundReply"):
        field, lines = (("asides", ["Can you grab my keys?", "Just a minute, I'm on a call."])
                        if title == "OtherDirectedReply" else ("background", ["And now, the local news at noon."]))
        return {"user": "What should I pack for a day hike?",
                "assistant": ["Bring plenty of water, and a light snack.", "A warm layer helps, even in summer.",
                              "Good shoes matter most, so wear ones you know."], field: lines}
    if title == "DiscardReply":
        n = int(re.search(r'"followup" holds (\d)', user).group(1))   # type: ignore[union-attr]
        return {"user": "Tell me about growing tomatoes.",
                "answer": ["Tomatoes like a sunny spot.", "Water them deeply, but not too often.",
                           "Tie the stems to a stake as they grow."],
                "stop": "Okay, stop there.", "ack": "Sure, I'll leave it there.",
                "followup": [{"user": "Can you suggest a good podcast?",
                              "assistant": ["Try a short daily news show.", "It fits a coffee break."]}][:n]}
    if title == "PauseReply":
        return {"user": "Could you tell me a quick way to clean a cast iron pan?",
                "assistant": ["Rinse it with hot water, and scrub with salt.", "Dry it well, then rub in a little oil."]}
    if title == "ParkReply":
        n = int(re.search(r'"resume_prefix" holds (\d)', user).group(1))   # type: ignore[union-attr]
        return {"user": "How do I start a small herb garden?",
                "answer": ["Pick a sunny windowsill first.", "Basil and mint are easy to start with.",
                           "Water them when the soil feels dry."],
                "new_request": "Wait, what time is it in Tokyo right now?",
                "new_answer": ["I can't check the clock from here.", "Your phone's world clock will show it."],
                "resume_prefix": ["Anyway, back to your herbs."][:n]}
    if title == "RepairReply":
        return {"user": "Can you plan a short run for this morning?",
                "answer": ["Sure, start with an easy warm up.", "Then run at a steady pace for a while.",
                           "Finish with a slow walk and some stretching."],
                "correction": "Sorry, I meant this evening, not this morning.",
                "repair_ack": "Got it, this evening then.",
                "repaired": ["Sure, start with an easy warm up after work.", "Then run at a steady pace before dinner.",
                             "Finish with a slow walk and some stretching."]}
    if title == "CorpusRepairReply":   # a corpus answer, one numbered line a sentence: repair the first
        items = re.findall(r"^\s*\d+\. (.*)$", user, re.MULTILINE)
        first = items[0]
        return {"correction": "Sorry, I meant for a small balcony, not a windowsill.",
                "repair_ack": "Got it, a balcony then.",
                "repaired": [f"On a balcony, {first[0].lower()}{first[1:]}", *items[1:]]}
    if title == "DelegationReply":
        request = re.search(r'means the same as: "(.*?)"\.\n', user, re.DOTALL).group(1)   # type: ignore[union-attr]
        result = re.search(r'Tool result: "(.*)"', user, re.DOTALL).group(1)   # type: ignore[union-attr]
        elements = language("en").sentence_elements([result])[:3]
        return {"user": request, "ack": "On it, give me a moment.", "relay": elements}
    raise AssertionError(f"no scripted reply for {title}")


class ScriptedServer:
    """An OpenAI-compatible chat-completions endpoint on 127.0.0.1 with a schedule of misbehaviour.

    `schedule` is consumed one action per request (then every request is answered "valid");
    `fail_seeds` are request seeds answered with malformed JSON every time. Every request is kept.
    """

    def __init__(self, schedule: list[str] | None = None, fail_seeds: set[int] | None = None,
                 stall_s: float = 1.5, refuses_response_format: bool = False, delay_s: float = 0.0):
        self.schedule = list(schedule or [])
        self.fail_seeds = fail_seeds or set()
        self.stall_s = stall_s
        self.refuses_response_format = refuses_response_format
        self.delay_s = delay_s   # every answer takes this long, so requests in flight overlap
        self.requests: list[dict[str, Any]] = []
        self.in_flight = self.peak_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.requests.append({"path": self.path, "body": body,
                                            "auth": self.headers.get("Authorization")})
                    action = server.schedule.pop(0) if server.schedule else "valid"
                    server.in_flight += 1
                    server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
                try:
                    time.sleep(server.delay_s)
                    server.answer(self, body, action)
                finally:
                    with server.lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, h: BaseHTTPRequestHandler, body: dict[str, Any], action: str) -> None:
        if self.refuses_response_format and "response_format" in body:
            return self._send(h, 400, {"error": {"message": "response_format json_schema is not supported"}})
        if action == "429":
            return self._send(h, 429, {"error": {"message": "rate limited"}})
        if action == "500":
            return self._send(h, 500, {"error": {"message": "overloaded"}})
        if action == "timeout":
            time.sleep(self.stall_s)
            return self._send(h, 504, {"error": {"message": "too late"}})
        msgs = body["messages"]
        if action == "malformed" or body.get("seed") in self.fail_seeds:
            content = '{"user": "half a reply", "assistant": ['   # cut off mid-object
        else:
            content = json.dumps(_valid_reply(msgs[0]["content"], msgs[1]["content"]))
            if action == "fenced":   # the chat habit of wrapping JSON in a code fence with a remark
                content = f"Here you go:\n```json\n{content}\n```"
        self._send(h, 200, {"id": "cmpl-1", "object": "chat.completion", "model": body["model"],
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}]})

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            h.send_response(code)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):   # the client gave up (a timeout): nothing to send
            pass

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


