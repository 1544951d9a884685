"""The conformance runner: send each case to an implementation, judge its answers, record them.

    from ctxconf.runner.engine import RunOptions, run_suite

The parts: `protocol` (the messages), `transports` (how they travel), `cases` and `selection`
(what is run), `verdicts` and `equivalent_diff` (how answers are judged), `results` and `junit`
(what is written), `display` (what the terminal shows), `serve` (the reference as a server).
"""
