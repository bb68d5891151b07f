#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Exchange IOS JSON files with the IOS authors' own Python package (docs/formats.md,
"The IOS authors' code"). Needs a checkout of github.com/mit-han-lab/inter-operator-scheduler
and a Python with numpy; nothing of theirs is copied here, their package is imported from the
checkout.

  ios_authors_files.py export CHECKOUT OUT_DIR
      Writes NAME.ios.json for each network in their ios.models (and ResNet-18/34/50, and
      ResNet-50 with bottleneck expansion 1), as their Graph.export_config() gives it, plus
      optimised ResNet-50 (expansion 1) and Inception V3 from
      their optimizer (without a GPU: a random cost model for parallel stages, a constant one
      with opt_type 'dp_merge' for merged convolutions). Each file is read back by their
      Graph.from_config() before it is kept.

  ios_authors_files.py check CHECKOUT FILE...
      Loads each file with their Graph.from_config() (which also infers every shape) and
      prints 'ok NAME operators' or the error; exits 1 if any failed.
"""
import importlib
import importlib.util
import json
import os
import sys
import types


def load_authors_package(checkout):
    """Imports their `ios` package without its __init__ (which loads their CUDA runtime)."""
    root = os.path.join(checkout, 'python', 'ios')
    pkg = types.ModuleType('ios')
    pkg.__path__ = [root]
    sys.modules['ios'] = pkg
    runtime = types.ModuleType('ios.contrib.ios_runtime')  # measuring needs their GPU library
    for name in ('graph_latency', 'stage_latency', 'block_latency'):
        setattr(runtime, name, None)
    sys.modules['ios.contrib.ios_runtime'] = runtime
    if importlib.util.find_spec('tqdm') is None:  # their optimizer imports it for progress bars
        tqdm = types.ModuleType('tqdm')

        class Quiet:
            def __init__(self, *args, **kwargs):
                pass

            def update(self, *args):
                pass

            def close(self):
                pass

        tqdm.tqdm = Quiet
        sys.modules['tqdm'] = tqdm
    return importlib.import_module('ios.ir')


def networks():
    models = importlib.import_module('ios.models')
    resnet = importlib.import_module('ios.models.resnet')
    names = ['alexnet', 'inception_v3', 'nasnet_large', 'randwire_large', 'squeezenet',
             'vgg_11', 'vgg_13', 'vgg_16', 'vgg_19']
    nets = {name: getattr(models, name) for name in names}
    nets.update({name: getattr(resnet, name) for name in ('resnet18', 'resnet34', 'resnet50')})
    nets['resnet50_expansion1'] = lambda: resnet50_expansion1(resnet)
    return nets


def resnet50_expansion1(resnet):
    """Their ResNet-50 sums each bottleneck's last conv (`channels` outputs) with a skip of
    4 x `channels`; built from their own functions with expansion 1 the channels agree."""
    resnet.reset_name()
    pv = resnet.placeholder(output_shape=(3, 224, 224))
    v, block, channels = resnet.resnet_front(pv)
    blocks = [block]
    for width, layers, stride in ((64, 3, (1, 1)), (128, 4, (2, 2)), (256, 6, (2, 2)),
                                  (512, 3, (2, 2))):
        v, block, channels = resnet.resnet_block(v, block_func=resnet.bottleneck, expansion=1,
                                                 channels=width, layers=layers,
                                                 in_channels=channels, stride=stride)
        blocks.append(block)
    graph = resnet.Graph('resnet50_expansion1', pv.node, blocks)
    graph.sequential_schedule()
    return graph


def save(ir, config, path):
    with open(path, 'w') as f:
        json.dump(config, f)
    with open(path) as f:
        ir.Graph.from_config(json.load(f))


def export(checkout, out_dir):
    import numpy as np
    ir = load_authors_package(checkout)
    nets = networks()
    for name, build in nets.items():
        save(ir, build().export_config(), os.path.join(out_dir, name + '.ios.json'))
    optimizer = importlib.import_module('ios.optimizer')
    cost_model = importlib.import_module('ios.cost_model')

    class EveryStageOne(cost_model.CostModel):  # fewest stages wins: as many merges as possible
        def get_stage_latency(self, stage, batch_size, warmup, number, repeat,
                              profile_stage=False):
            return [1.0] * repeat

    runs = [('resnet50_expansion1', 'dp_merge', EveryStageOne()),
            ('inception_v3', 'dp_merge', EveryStageOne()),
            ('resnet50_expansion1', 'dp_parallel_merge', cost_model.RandomCostModel())]
    for name, opt_type, model in runs:
        np.random.seed(0)
        graph = optimizer.optimize(nets[name](), batch_size=1, cost_model=model, opt_type=opt_type,
                                   warmup=1, number=1, repeat=1, compute_weight=False)
        kind = 'random' if isinstance(model, cost_model.RandomCostModel) else 'const'
        save(ir, graph.export_config(),
             os.path.join(out_dir, '%s_%s_%s.ios.json' % (name, opt_type, kind)))


def check(checkout, files):
    ir = load_authors_package(checkout)
    failed = 0
    for path in files:
        try:
            with open(path) as f:
                graph = ir.Graph.from_config(json.load(f))
            print('ok', path, sum(1 for _ in graph.nodes()))
        except Exception as e:  # report every file, then fail
            failed += 1
            print('FAILED', path, type(e).__name__, e)
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == 'export':
        export(argv[2], argv[3])
        return 0
    if len(argv) >= 4 and argv[1] == 'check':
        return check(argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
