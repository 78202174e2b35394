"""codegen: compile declarative specs of LLM tools and entities into a typed Python package."""

__version__ = "0.2.0"
