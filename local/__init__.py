"""The local stack: template.yaml served without Docker, over moto's AWS emulator (see README)."""
