"""EVA-Bench's medical_hr tool API (``evalkit.domains.medical_hr.tools``)."""
