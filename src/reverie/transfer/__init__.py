"""Moving memory in and out: from an OpenClaw workspace, from a folder of Markdown notes, and a
complete export of an agent that imports back. Nothing is ever overwritten; every import reports
what it took, what it left and why."""

from .archive import export_agent, import_archive
from .copying import Report
from .markdown import import_markdown
from .openclaw import import_openclaw

__all__ = ["Report", "export_agent", "import_archive", "import_markdown", "import_openclaw"]
