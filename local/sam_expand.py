"""template.yaml as SAM itself expands it for CloudFormation: SAM CLI's `AWS::LanguageExtensions` expander
(`Fn::ForEach`), then the SAM translator (functions, their roles and policies, the API, its stage, permissions…),
written as plain CloudFormation JSON for `make checkov`, which scans it beside the project's own expansion
(`python -m local.template`). Runs in SAM CLI's virtualenv (.venv-sam), which holds both:

    .venv-sam/bin/python local/sam_expand.py [OUTPUT]     (default .aws-sam/expanded/sam-template.json)

checkov reads a resource's skips from its `Metadata.checkov.skip`. SAM makes a function's role (`<Function>Role`)
from the function's `Policies` and gives it no Metadata, so a skip written on a function about its policies
(CKV_AWS_111) is carried over to the role made from them here; nothing else is."""

import json
import os
import sys
from pathlib import Path
from typing import Any

from samcli.lib.cfn_language_extensions.sam_integration import expand_language_extensions
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / ".aws-sam" / "expanded" / "sam-template.json"
# Checks about a function's IAM policies: they land on the role SAM makes for it.
ROLE_CHECKS = {"CKV_AWS_107", "CKV_AWS_108", "CKV_AWS_109", "CKV_AWS_110", "CKV_AWS_111", "CKV_AWS_290"}


class NoIamLoader:
    """The translator asks IAM for managed policies named without an ARN; the template names none."""

    def load(self) -> dict[str, str]:
        return {}


def parameter_defaults(template: dict[str, Any]) -> dict[str, Any]:
    values = {name: spec["Default"] for name, spec in template.get("Parameters", {}).items() if "Default" in spec}
    return {**values, "AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}


def as_packaged(sam: dict[str, Any]) -> None:
    """Local code and definition paths as `sam package` leaves them: S3 URIs (the translator takes nothing else)."""
    for spec in sam["Resources"].values():
        props = spec.get("Properties", {})
        for key in ("CodeUri", "ContentUri", "DefinitionUri"):
            if isinstance(props.get(key), str) and not props[key].startswith("s3://"):
                props[key] = f"s3://ott-artifacts/{props[key].strip('/')}"


def carry_role_skips(sam: dict[str, Any], translated: dict[str, Any]) -> None:
    resources = translated["Resources"]
    for name, spec in sam["Resources"].items():
        if spec.get("Type") != "AWS::Serverless::Function" or f"{name}Role" not in resources:
            continue
        skips = [
            skip for skip in spec.get("Metadata", {}).get("checkov", {}).get("skip", []) if skip["id"] in ROLE_CHECKS
        ]
        if skips:
            role = resources[f"{name}Role"]
            role.setdefault("Metadata", {}).setdefault("checkov", {}).setdefault("skip", []).extend(skips)


def expand(path: Path = ROOT / "template.yaml") -> dict[str, Any]:
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")  # the translator's pseudo parameters
    template = yaml_parse(path.read_text(encoding="utf-8"))
    parameters = parameter_defaults(template)
    sam = expand_language_extensions(template, parameters, enabled=True).expanded_template
    transforms = sam.get("Transform")
    if isinstance(transforms, list):  # CloudFormation hands SAM the template without the transform it ran
        sam["Transform"] = [name for name in transforms if name != "AWS::LanguageExtensions"]
        if len(sam["Transform"]) == 1:
            sam["Transform"] = sam["Transform"][0]
    as_packaged(sam)
    translated = transform(json.loads(json.dumps(sam)), parameters, NoIamLoader())
    carry_role_skips(sam, translated)
    return translated


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    translated = expand()
    output.write_text(json.dumps(translated, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"{output}: {len(translated['Resources'])} resources as SAM expands them", file=sys.stderr)


if __name__ == "__main__":
    main()
