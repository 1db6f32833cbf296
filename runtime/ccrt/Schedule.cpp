#include "runtime/ccrt/Schedule.h"

#include "ccopt/device.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace ccopt::rt {
namespace {

struct DTypeName {
  DType type;
  const char* name;
  size_t bytes;
};
constexpr DTypeName kDTypes[] = {
    {DType::F64, "f64", 8}, {DType::F32, "f32", 4}, {DType::F16, "f16", 2}, {DType::BF16, "bf16", 2},
    {DType::I64, "i64", 8}, {DType::I32, "i32", 4}, {DType::I8, "i8", 1},   {DType::U64, "ui64", 8},
    {DType::U32, "ui32", 4}, {DType::U8, "ui8", 1},
};

constexpr const char* kTag = "// ccopt-schedule ";

bool parseInt(const std::string& s, int64_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  out = v;
  return true;
}

// One metadata line (without the tag) into `s`; an error message or "".
std::string parseLine(const std::string& line, Schedule& s) {
  std::map<std::string, std::string> kv;
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return "malformed field '" + word + "'";
    kv[word.substr(0, eq)] = word.substr(eq + 1);
  }
  auto need = [&](const char* key, std::string& value) -> std::string {
    auto it = kv.find(key);
    if (it == kv.end()) return std::string("missing '") + key + "'";
    value = it->second;
    return "";
  };
  auto needInt = [&](const char* key, int64_t lo, int64_t& value) -> std::string {
    std::string text;
    if (std::string e = need(key, text); !e.empty()) return e;
    if (!parseInt(text, value) || value < lo) return std::string("bad ") + key + " '" + text + "'";
    return "";
  };
  auto needType = [&](const char* key, DType& value) -> std::string {
    std::string text;
    if (std::string e = need(key, text); !e.empty()) return e;
    if (!parseDType(text, value)) return std::string("unknown ") + key + " type '" + text + "'";
    return "";
  };
  int64_t ranks = 0, channels = 0, inPlace = 0, root = -1;
  std::string rankMap, e;
  if (!(e = need("kernel", s.kernel)).empty() || !(e = need("collective", s.collective)).empty() ||
      !(e = need("redop", s.redop)).empty() || !(e = need("algorithm", s.algorithm)).empty() ||
      !(e = needInt("ranks", 1, ranks)).empty() || !(e = needInt("channels", 1, channels)).empty() ||
      !(e = needType("element", s.element)).empty() || !(e = needType("wire", s.wire)).empty() ||
      !(e = needInt("input", 0, s.inputCount)).empty() || !(e = needInt("output", 0, s.outputCount)).empty() ||
      !(e = needInt("scratch", 0, s.scratchCount)).empty() || !(e = needInt("in_place", 0, inPlace)).empty() ||
      !(e = needInt("root", -1, root)).empty() || !(e = need("rank_map", rankMap)).empty())
    return e;
  if (ranks > (1 << 20) || channels > 1024) return "ranks or channels out of range";
  s.ranks = int(ranks);
  s.channels = int(channels);
  s.inPlace = inPlace != 0;
  s.root = int(root);
  s.rankMap.clear();
  if (rankMap != "-") {
    std::istringstream list(rankMap);
    for (std::string item; std::getline(list, item, ',');) {
      int64_t r = 0;
      if (!parseInt(item, r) || r < 0) return "bad rank_map '" + rankMap + "'";
      s.rankMap.push_back(int(r));
    }
    if (s.rankMap.size() != size_t(s.ranks)) return "rank_map has " + std::to_string(s.rankMap.size()) +
                                                     " entries for " + std::to_string(s.ranks) + " ranks";
  }
  if (s.root >= s.ranks) return "root " + std::to_string(s.root) + " out of range";
  // Optional (emitters before the LL protocol wrote neither): Simple, no mailbox.
  if (auto it = kv.find("protocol"); it != kv.end()) {
    if (it->second != "simple" && it->second != "ll" && it->second != "ll128")
      return "unknown protocol '" + it->second + "'";
    s.protocol = it->second;
  }
  if (kv.count("mailbox"))
    if (!(e = needInt("mailbox", 0, s.mailboxBytes)).empty()) return e;
  if (s.protocol == "ll" && s.mailboxBytes % 8) return "mailbox must be whole 8-byte lines";
  // Optional (emitters before NVLS wrote none): ordinary buffers. 1: every
  // rank on one multicast object; 2 or more: that many consecutive ranks on
  // each (a node's, the switch reaching only those).
  int64_t multicast = 0;
  if (kv.count("multicast"))
    if (!(e = needInt("multicast", 0, multicast)).empty()) return e;
  s.multicast = multicast != 0;
  s.multicastGroup = multicast > 1 ? multicast : 0;
  if (s.multicastGroup && s.ranks % s.multicastGroup)
    return "multicast must divide the ranks into equal blocks";
  if (s.protocol == "ll128" && s.mailboxBytes % 128) return "mailbox must be whole 128-byte lines";
  return "";
}

}  // namespace

bool parseDType(const std::string& name, DType& out) {
  for (const DTypeName& d : kDTypes)
    if (name == d.name) {
      out = d.type;
      return true;
    }
  return false;
}

const char* dtypeName(DType type) {
  for (const DTypeName& d : kDTypes)
    if (d.type == type) return d.name;
  return "?";
}

size_t dtypeBytes(DType type) {
  for (const DTypeName& d : kDTypes)
    if (d.type == type) return d.bytes;
  return 0;
}

size_t Schedule::syncBytes() const {
  return size_t(cc_sync_bytes(ranks, channels, mailboxBytes));
}

const Schedule* KernelLibrary::find(const std::string& kernel) const {
  for (const Schedule& s : schedules)
    if (s.kernel == kernel) return &s;
  return nullptr;
}

Status parseKernelLibrary(std::string source, KernelLibrary& out) {
  KernelLibrary lib;
  std::istringstream in(source);
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (line.rfind(kTag, 0) != 0) continue;
    Schedule s;
    if (std::string e = parseLine(line.substr(std::strlen(kTag)), s); !e.empty())
      return Status::error(Code::InvalidArgument, "line " + std::to_string(lineNo) + ": ccopt-schedule: " + e);
    if (lib.find(s.kernel))
      return Status::error(Code::InvalidArgument,
                           "line " + std::to_string(lineNo) + ": kernel '" + s.kernel + "' appears twice");
    lib.schedules.push_back(std::move(s));
  }
  if (lib.schedules.empty())
    return Status::error(Code::InvalidArgument,
                         "no '// ccopt-schedule' line: not the output of `ccopt --emit=cuda`");
  lib.source = std::move(source);
  out = std::move(lib);
  return Status::success();
}

Status loadKernelLibrary(const std::string& path, KernelLibrary& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(Code::InvalidArgument, "cannot read " + path + ": " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Status s = parseKernelLibrary(std::move(text), out);
  if (!s.ok()) s.message = path + ": " + s.message;
  return s;
}

}  // namespace ccopt::rt
