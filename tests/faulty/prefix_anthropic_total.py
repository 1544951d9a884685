"""Area prefix: Anthropic's `usage.input_tokens` is taken for the whole input, so the total
leaves out the tokens read from and written to the cache (pfx.usage.anthropic)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "prefix_anthropic_total",
    {
        "prefix.usage": [
            ("return Usage.of(_sum(uncached_part, read, write), read, write)",
             "return Usage.of(uncached_part, read, write)"),
        ],
    },
    areas=("prefix",),
)
