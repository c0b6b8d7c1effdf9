#!/usr/bin/env python3
"""The GPU as PyTorch and nvidia-smi see it, as JSON: name, memory, multiprocessors, clocks, versions.

    python3 validate/torch/describe_device.py --out device.json
Exits 3 without PyTorch or a CUDA device, saying which.
"""
import argparse
import json
import subprocess
import sys

QUERY = ("name,memory.total,driver_version,clocks.max.sm,clocks.max.memory,clocks.sm,clocks.mem,power.limit,"
         "pcie.link.gen.max,pcie.link.width.max,temperature.gpu")


def nvidia_smi():
    """nvidia-smi's answer to QUERY for GPU 0, field by field ({} when it is missing or fails)."""
    try:
        text = subprocess.run(["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-i", "0"],
                              capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return {"error": str(e)}
    values = [v.strip() for v in text.strip().split(",")]
    return dict(zip(QUERY.split(","), values))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="-")
    a = p.parse_args(argv)
    try:
        import torch
    except ImportError as e:
        print(f"describe_device.py: error: PyTorch is not installed here ({e})", file=sys.stderr)
        return 3
    if not torch.cuda.is_available():
        print("describe_device.py: error: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 3
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from step_model import device_description
    doc = {"torch": device_description(), "nvidia_smi": nvidia_smi(),
           "l2_cache_bytes": getattr(torch.cuda.get_device_properties(0), "L2_cache_size", None)}
    text = json.dumps(doc, indent=2) + "\n"
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    print(f"describe_device.py: {doc['torch']['name']}, {doc['torch']['total_memory_bytes'] / 2**30:.1f} GiB",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
