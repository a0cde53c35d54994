"""Fixtures shared by every test: the seed pages and the Scene schema."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"


@pytest.fixture(scope="session")
def seeds_dir():
    """../shared/seeds, the specification pages; tests that need it skip when it is absent."""
    if not SEEDS.is_dir():
        pytest.skip(f"the seed pages are not at {SEEDS} (CI and developers have ../shared beside the repo)")
    return SEEDS


@pytest.fixture(scope="session")
def validate_scene():
    """Validate a Scene dict against kernelviz/pie/scene.schema.json; raises jsonschema.ValidationError."""
    import jsonschema

    from kernelviz.pie.bounds import schema

    validator = jsonschema.Draft202012Validator(schema())

    def validate(scene):
        validator.validate(scene)
        return scene

    return validate
