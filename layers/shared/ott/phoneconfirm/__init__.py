"""Phone confirmation service v2: SIM-push (+SMS) → call → SMS via a second provider → support
(spec document 1, part B)."""
