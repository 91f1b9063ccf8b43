"""The Lambda base image `sam local` runs the functions in (`python -m local.lambda_image`)."""
