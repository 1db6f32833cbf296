//===- TopologyFile.h - machines described in files --------------*- C++ -*-===//
//
// Two formats describe one node of a machine (`ccopt --topo-file F`;
// `--nodes N` then joins N copies with replicate()):
//
// 1. ccopt's JSON format. The whole schema:
//
//   root object
//     "name"                   string, optional (default: the file's stem)
//     "arch"                   "volta" | "ampere" | "hopper", optional
//                              (default "ampere"); NCCL's protocol model
//     "nvls"                   bool, optional (default false): NVSwitch
//                              reduces in the switch
//     "channel_bandwidth_gbps" number > 0, optional (default by arch:
//                              volta 15, ampere 25, hopper 40)
//     "devices"                array, required, of
//       "name"                 string, required, unique, not empty
//       "kind"                 "gpu" | "nvswitch" | "pcie_switch" | "cpu" |
//                              "nic" | "net_switch"
//       "port_gbps"            number > 0: GB/s of the network port;
//                              required for "nic", not allowed otherwise
//     "links"                  array, required (may be empty), of
//       "from", "to"           device names, required, different
//       "kind"                 "nvlink" | "pcie" | "smp" | "net"
//       "bandwidth_gbps"       number > 0, required: GB/s per direction the
//                              best protocol achieves (what bounds use)
//       "raw_gbps"             number > 0, optional (default bandwidth_gbps):
//                              the hardware's figure, for reference
//       "latency_us"           number >= 0, optional (default 0)
//   Any object may also carry a "comment" field, which is ignored; any other
//   unknown field is an error (it is most likely a misspelling).
//
//   Links are bidirectional: one entry makes both directions, each with the
//   full bandwidth. GPUs are ranks in the order listed. The graph must be
//   connected (Machine::validate()).
//
//   A complete example, a DGX A100-like node that matches the "a100x8"
//   preset (also at examples/topologies/dgx-a100-like.json):
//
// ---- example: examples/topologies/dgx-a100-like.json ----
//   {
//     "name": "dgx-a100-like", "arch": "ampere", "nvls": false, "channel_bandwidth_gbps": 25,
//     "devices": [
//       {"name": "cpu0", "kind": "cpu"},          {"name": "cpu1", "kind": "cpu"},
//       {"name": "pcie0", "kind": "pcie_switch"}, {"name": "pcie1", "kind": "pcie_switch"},
//       {"name": "pcie2", "kind": "pcie_switch"}, {"name": "pcie3", "kind": "pcie_switch"},
//       {"name": "pcie0.0", "kind": "pcie_switch"}, {"name": "pcie0.1", "kind": "pcie_switch"},
//       {"name": "pcie1.0", "kind": "pcie_switch"}, {"name": "pcie1.1", "kind": "pcie_switch"},
//       {"name": "pcie2.0", "kind": "pcie_switch"}, {"name": "pcie2.1", "kind": "pcie_switch"},
//       {"name": "pcie3.0", "kind": "pcie_switch"}, {"name": "pcie3.1", "kind": "pcie_switch"},
//       {"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"},
//       {"name": "gpu2", "kind": "gpu"}, {"name": "gpu3", "kind": "gpu"},
//       {"name": "gpu4", "kind": "gpu"}, {"name": "gpu5", "kind": "gpu"},
//       {"name": "gpu6", "kind": "gpu"}, {"name": "gpu7", "kind": "gpu"},
//       {"name": "nic0", "kind": "nic", "port_gbps": 25}, {"name": "nic1", "kind": "nic", "port_gbps": 25},
//       {"name": "nic2", "kind": "nic", "port_gbps": 25}, {"name": "nic3", "kind": "nic", "port_gbps": 25},
//       {"name": "nic4", "kind": "nic", "port_gbps": 25}, {"name": "nic5", "kind": "nic", "port_gbps": 25},
//       {"name": "nic6", "kind": "nic", "port_gbps": 25}, {"name": "nic7", "kind": "nic", "port_gbps": 25},
//       {"name": "nvswitch", "kind": "nvswitch"}
//     ],
//     "links": [
//       {"from": "cpu0", "to": "cpu1", "kind": "smp", "bandwidth_gbps": 16},
//       {"from": "pcie0", "to": "cpu0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie1", "to": "cpu0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie2", "to": "cpu1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie3", "to": "cpu1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie0.0", "to": "pcie0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie0.1", "to": "pcie0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie1.0", "to": "pcie1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie1.1", "to": "pcie1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie2.0", "to": "pcie2", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie2.1", "to": "pcie2", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie3.0", "to": "pcie3", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "pcie3.1", "to": "pcie3", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu0", "to": "pcie0.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu1", "to": "pcie0.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu2", "to": "pcie1.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu3", "to": "pcie1.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu4", "to": "pcie2.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu5", "to": "pcie2.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu6", "to": "pcie3.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu7", "to": "pcie3.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic0", "to": "pcie0.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic1", "to": "pcie0.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic2", "to": "pcie1.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic3", "to": "pcie1.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic4", "to": "pcie2.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic5", "to": "pcie2.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic6", "to": "pcie3.0", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "nic7", "to": "pcie3.1", "kind": "pcie", "bandwidth_gbps": 24, "raw_gbps": 31.5},
//       {"from": "gpu0", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300, "latency_us": 0},
//       {"from": "gpu1", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300},
//       {"from": "gpu2", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300},
//       {"from": "gpu3", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300},
//       {"from": "gpu4", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300},
//       {"from": "gpu5", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300},
//       {"from": "gpu6", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300},
//       {"from": "gpu7", "to": "nvswitch", "kind": "nvlink", "bandwidth_gbps": 240, "raw_gbps": 300}
//     ]
//   }
// ---- end of example ----
//
// 2. NCCL's topology XML, as NCCL_TOPO_DUMP_FILE writes it:
//
//   <system version="1">
//     <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="23" modelid="49">
//       <pci busid="0000:03:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
//         <pci busid="0000:07:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
//           <gpu dev="0" sm="80" rank="0" gdr="1">
//             <nvlink target="0000:c4:00.0" count="2" tclass="0x068000"/>
//           </gpu>
//         </pci>
//         <pci busid="0000:0c:00.0" class="0x020700" link_speed="16.0 GT/s PCIe" link_width="16">
//           <nic><net name="mlx5_0" dev="0" speed="200000" port="1" gdr="1"/></nic>
//         </pci>
//       </pci>
//     </cpu>
//   </system>
//
//   It maps onto the machine as NCCL's own model (src/graph/topo.h) does:
//   - <cpu> is a cpu device; every two cpus are joined by an smp link of
//     NCCL's inter-socket bandwidth: Intel QPI 6 GB/s (Skylake and later,
//     family 6 model >= 0x55: 10), AMD 16, POWER 32, ARM 6, otherwise 10.
//   - A <pci> holding a <gpu> is that GPU; one holding a <nic> is a nic
//     device per <net> (port GB/s = speed in Mb/s / 8000, NCCL's 10000 Mb/s
//     when speed <= 0; a card with several ports becomes a pcie_switch with
//     a nic per port); one holding other <pci> elements (a bridge, class
//     0x060400) is a pcie_switch; a leaf <pci> of another class is ignored.
//     Each is joined to its parent by a pcie link of NCCL's bandwidth,
//     width x per-lane speed / 80 with link_speed 2.5/5/8/16/32/64 GT/s ->
//     15/30/60/120/240/480: Gen3 x16 = 12, Gen4 x16 = 24, Gen5 x16 = 48
//     GB/s; a missing or unknown speed counts as Gen3 and a missing or zero
//     width as 16, as in NCCL. The raw figure is the lane rate after line
//     coding (Gen4 x16 = 31.5 GB/s). A <nic> right under a <cpu> (NCCL: a
//     local link) is joined to it by a pcie link as fast as its port.
//   - <nvlink target count tclass> joins the GPU to the GPU whose busid is
//     `target`; a target of a GPU class (0x03...) that is not in the file is
//     skipped, as NCCL does (dumps of jobs on part of a node list them). For
//     tclass 0x068000 it joins one nvswitch device shared by all GPUs (NCCL
//     folds all NVSwitches into one), for 0x068001 the GPU's own CPU
//     (POWER9); any other target is an error. Bandwidth is count x NCCL's
//     per-link figure by the GPU's sm: 60 -> 18, 70/80 -> 20, 86 -> 12,
//     90 -> 20.6, 100 -> 40.1 GB/s (20 below 60); raw 25 GB/s per link (50
//     from sm 100, 20 below 70). Repeated targets add up; the two GPUs of a
//     pair each list their link and the larger figure is kept.
//   - arch from the smallest sm: < 80 volta, < 90 ampere, otherwise hopper
//     (Blackwell is modelled as hopper); nvls when that sm >= 90 and an
//     NVSwitch exists; channel bandwidth by arch as in JSON.
//   - GPUs are ranks in the order of their `rank` attributes when every GPU
//     has a distinct one, else of `dev`, else in the order listed.
//   The reader handles elements, attributes, self-closing tags, comments,
//   <?...?> and <!DOCTYPE ...> declarations, the five predefined entities
//   and ASCII character references. Elements it does not know (e.g. <c2c>,
//   Grace-Hopper's GPU-CPU link) are skipped.
//
// Errors are one line each: "file:line:col: message" for syntax errors and
// for XML elements, "file: links[3].to: unknown device 'gpu9'" (the field's
// path) for JSON, "file: message" for the whole machine (no GPU, a
// disconnected graph) or a file that cannot be read. No input crashes.
//
//===----------------------------------------------------------------------===//

#ifndef CCOPT_TOPOLOGY_TOPOLOGYFILE_H
#define CCOPT_TOPOLOGY_TOPOLOGYFILE_H

#include "topology/Machine.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace ccopt::topo {

/// Reads `path` and parses it by its content: JSON when the first
/// non-blank character is '{', NCCL topology XML when it is '<'. Returns
/// one node (nodes = 1, gpusPerNode = its GPUs); the caller replicates it.
llvm::Expected<Machine> loadTopologyFile(llvm::StringRef path);

/// Parses ccopt's JSON format; `fileName` names the source in errors and
/// gives the machine its default name.
llvm::Expected<Machine> parseTopologyJson(llvm::StringRef text,
                                          llvm::StringRef fileName);

/// Parses an NCCL topology XML dump; `fileName` as above.
llvm::Expected<Machine> parseNcclTopologyXml(llvm::StringRef text,
                                             llvm::StringRef fileName);

/// The machine a user names: a preset (`--topo`) or a file (`--topo-file`),
/// replicated over `nodes` nodes. Errors name the preset, the file and place,
/// or the option.
llvm::Expected<Machine> loadMachine(llvm::StringRef preset, llvm::StringRef file,
                                    int nodes);

} // namespace ccopt::topo

#endif
