"""EventBridge schedules do not fire in the emulator: the local stack runs them at the template's rate."""

import pytest

from local.template import Template, rate_seconds


@pytest.mark.parametrize(
    ("expression", "seconds"), [("rate(1 minute)", 60), ("rate(5 minutes)", 300), ("rate(1 hour)", 3600)]
)
def test_rates_are_read_in_seconds(expression, seconds):
    assert rate_seconds(expression) == seconds


def test_a_cron_expression_is_refused_rather_than_misread():
    with pytest.raises(ValueError, match="unsupported"):
        rate_seconds("cron(0 * * * ? *)")


def test_every_schedule_event_of_the_template_is_found():
    template = Template()
    scheduled = {function.logical_id for function, _ in template.scheduled_functions()}
    declared = {
        logical_id
        for logical_id, spec in template.of_type("AWS::Serverless::Function").items()
        if any(event.get("Type") == "Schedule" for event in spec["Properties"].get("Events", {}).values())
    }
    assert scheduled == declared
