"""The cache audit: a provider-neutral view of each request, and what a provider would cache of it."""
