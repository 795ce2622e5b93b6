"""Background agents: restricted model loops that keep memory current.

``runner`` is the restricted sub-agent loop and the one-at-a-time runner;
``session`` keeps a session's notes file; ``extract`` saves durable memories
from a conversation; ``consolidate`` distils daily logs into topic files;
``host`` drives session notes and extraction from an agent's turns.
"""
