"""`ctxconf probe`: real, unmodified harnesses checked from the outside.

A scripted mock model (`server`) on 127.0.0.1 answers a harness through its own base-URL setting
with the steps of a scenario (`scenario`, mapped onto the harness's tools by `mapping`), records
every request, and `checks` judges the recorded requests against the rules of `spec/prefix.md`,
`spec/context.md` and `spec/history.md` that can be seen on the wire. `harness` runs one harness
as its profile (`profile`) says, isolated; `results` and `matrix` write what was found.
"""
