//===- TopologyFile.cpp - machines described in files ---------------------===//
//
// ccopt's JSON format and NCCL's topology XML (see TopologyFile.h for both).
// Every error is one line naming the file and the place; no input crashes:
// nesting is bounded before anything recursive sees it.
//
//===----------------------------------------------------------------------===//

#include "topology/TopologyFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace ccopt::topo;
using llvm::StringRef;

namespace {

/// Deeper nesting than this is refused before any recursive code sees it
/// (a real topology needs fewer than ten levels).
constexpr int kMaxDepth = 256;

/// An error of one line: control characters that came from the input (a
/// name with a newline in it) are written as escapes.
llvm::Error fail(const llvm::Twine &message) {
  std::string line;
  for (char c : message.str()) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n')
      line += "\\n";
    else if (c == '\r')
      line += "\\r";
    else if (c == '\t')
      line += "\\t";
    else if (u < 0x20 || u == 0x7f)
      line += "\\x" + llvm::utohexstr(u, /*LowerCase=*/true, /*Width=*/2);
    else
      line += c;
  }
  return llvm::make_error<llvm::StringError>(line,
                                             llvm::inconvertibleErrorCode());
}

/// 1-based line and column (in bytes) of `offset` in `text`.
std::pair<size_t, size_t> lineCol(StringRef text, size_t offset) {
  offset = std::min(offset, text.size());
  StringRef before = text.take_front(offset);
  size_t line = 1 + before.count('\n');
  size_t lastNewline = before.rfind('\n');
  size_t col = lastNewline == StringRef::npos ? offset + 1 : offset - lastNewline;
  return {line, col};
}

llvm::Error failAt(StringRef file, StringRef text, size_t offset,
                   const llvm::Twine &message) {
  auto [line, col] = lineCol(text, offset);
  return fail(file + ":" + llvm::Twine(line) + ":" + llvm::Twine(col) + ": " +
              message);
}

std::string machineName(StringRef fileName) {
  StringRef stem = llvm::sys::path::stem(fileName);
  return stem.empty() ? std::string("topology") : stem.str();
}

double defaultChannelBandwidth(Arch arch) {
  switch (arch) {
  case Arch::Volta: return 15;
  case Arch::Ampere: return 25;
  case Arch::Hopper: return 40;
  }
  return 25;
}

/// Checks what only the whole machine can show; fills in the node counts.
llvm::Expected<Machine> finish(Machine machine, StringRef fileName) {
  machine.nodes = 1;
  machine.gpusPerNode = machine.ranks();
  if (auto problem = machine.validate())
    return fail(fileName + ": " + *problem);
  return machine;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// The offset of the first place nested deeper than kMaxDepth, if any
/// (strings skipped), so that llvm::json's recursive parser never sees it.
std::optional<size_t> tooDeepJson(StringRef text) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        return i;
    } else if (c == ']' || c == '}')
      --depth;
  }
  return std::nullopt;
}

/// Reads the fields of one topology JSON document; the first error wins.
class JsonReader {
public:
  explicit JsonReader(StringRef file) : file(file) {}

  llvm::Expected<Machine> read(const llvm::json::Value &root);

private:
  StringRef file;

  llvm::Error error(const llvm::Twine &path, const llvm::Twine &message) {
    if (path.str().empty())
      return fail(file + ": " + message);
    return fail(file + ": " + path + ": " + message);
  }

  static std::string describe(const llvm::json::Value &value) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << value;
    if (text.size() > 40)
      text = text.substr(0, 37) + "...";
    return text;
  }

  static std::string join(const std::string &path, StringRef key) {
    return path.empty() ? key.str() : path + "." + key.str();
  }

  /// Every key of `object` must be one of `known` (or "comment").
  llvm::Error checkKeys(const llvm::json::Object &object,
                        const std::string &path,
                        std::initializer_list<StringRef> known) {
    std::vector<std::string> unknown;
    for (const auto &entry : object) {
      StringRef key = entry.first;
      if (key != "comment" && !llvm::is_contained(known, key))
        unknown.push_back(key.str());
    }
    if (unknown.empty())
      return llvm::Error::success();
    llvm::sort(unknown);
    std::string expected;
    for (StringRef k : known)
      expected += (expected.empty() ? "" : ", ") + k.str();
    return error(join(path, unknown.front()),
                 "unknown field (expected one of " + expected + ")");
  }

  llvm::Expected<std::optional<std::string>>
  getString(const llvm::json::Object &object, const std::string &path,
            StringRef key, bool required) {
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (required)
        return error(path, "missing field '" + key + "'");
      return std::optional<std::string>();
    }
    auto s = value->getAsString();
    if (!s)
      return error(join(path, key),
                   "expected a string, got " + describe(*value));
    return std::optional<std::string>(s->str());
  }

  /// A finite number that is > 0 (or >= 0 when `zeroOk`).
  llvm::Expected<std::optional<double>>
  getNumber(const llvm::json::Object &object, const std::string &path,
            StringRef key, bool required, bool zeroOk) {
    const llvm::json::Value *value = object.get(key);
    if (!value) {
      if (required)
        return error(path, "missing field '" + key + "'");
      return std::optional<double>();
    }
    auto n = value->getAsNumber();
    bool ok = n && std::isfinite(*n) && (zeroOk ? *n >= 0 : *n > 0);
    if (!ok)
      return error(join(path, key), llvm::Twine("must be a number ") +
                                        (zeroOk ? ">= 0" : "> 0") + " (got " +
                                        describe(*value) + ")");
    return std::optional<double>(*n);
  }
};

std::optional<DeviceKind> parseDeviceKind(StringRef s) {
  for (DeviceKind kind : {DeviceKind::Gpu, DeviceKind::NvSwitch,
                          DeviceKind::PcieSwitch, DeviceKind::Cpu,
                          DeviceKind::Nic, DeviceKind::NetSwitch})
    if (s == toString(kind))
      return kind;
  return std::nullopt;
}

std::optional<LinkKind> parseLinkKind(StringRef s) {
  for (LinkKind kind :
       {LinkKind::NvLink, LinkKind::Pcie, LinkKind::Smp, LinkKind::Net})
    if (s == toString(kind))
      return kind;
  return std::nullopt;
}

std::optional<Arch> parseArch(StringRef s) {
  for (Arch arch : {Arch::Volta, Arch::Ampere, Arch::Hopper})
    if (s == toString(arch))
      return arch;
  return std::nullopt;
}

llvm::Expected<Machine> JsonReader::read(const llvm::json::Value &rootValue) {
  const llvm::json::Object *root = rootValue.getAsObject();
  if (!root)
    return error("", "the top level must be an object, got " +
                         describe(rootValue));
  if (auto err = checkKeys(*root, "",
                           {"name", "arch", "nvls", "channel_bandwidth_gbps",
                            "devices", "links"}))
    return err;

  Machine machine;
  auto name = getString(*root, "", "name", false);
  if (!name)
    return name.takeError();
  machine.name = name->value_or(machineName(file));

  auto arch = getString(*root, "", "arch", false);
  if (!arch)
    return arch.takeError();
  if (*arch) {
    auto parsed = parseArch(**arch);
    if (!parsed)
      return error("arch", "unknown arch '" + **arch +
                               "' (expected volta, ampere or hopper)");
    machine.arch = *parsed;
  }

  if (const llvm::json::Value *nvls = root->get("nvls")) {
    auto b = nvls->getAsBoolean();
    if (!b)
      return error("nvls", "expected true or false, got " + describe(*nvls));
    machine.nvls = *b;
  }

  auto channel = getNumber(*root, "", "channel_bandwidth_gbps", false, false);
  if (!channel)
    return channel.takeError();
  machine.channelBandwidth =
      channel->value_or(defaultChannelBandwidth(machine.arch));

  // Devices.
  const llvm::json::Value *devicesValue = root->get("devices");
  if (!devicesValue)
    return error("", "missing field 'devices'");
  const llvm::json::Array *devices = devicesValue->getAsArray();
  if (!devices)
    return error("devices", "expected an array, got " + describe(*devicesValue));
  llvm::StringMap<int> byName;
  llvm::StringMap<size_t> nameIndex;
  for (size_t i = 0; i < devices->size(); ++i) {
    std::string path = "devices[" + std::to_string(i) + "]";
    const llvm::json::Object *device = (*devices)[i].getAsObject();
    if (!device)
      return error(path, "expected an object, got " + describe((*devices)[i]));
    if (auto err = checkKeys(*device, path, {"name", "kind", "port_gbps"}))
      return err;
    auto deviceName = getString(*device, path, "name", true);
    if (!deviceName)
      return deviceName.takeError();
    if ((*deviceName)->empty())
      return error(path + ".name", "must not be empty");
    auto kindName = getString(*device, path, "kind", true);
    if (!kindName)
      return kindName.takeError();
    auto kind = parseDeviceKind(**kindName);
    if (!kind)
      return error(path + ".kind",
                   "unknown device kind '" + **kindName +
                       "' (expected gpu, nvswitch, pcie_switch, cpu, nic or "
                       "net_switch)");
    auto port = getNumber(*device, path, "port_gbps", *kind == DeviceKind::Nic,
                          false);
    if (!port)
      return port.takeError();
    if (*port && *kind != DeviceKind::Nic)
      return error(path + ".port_gbps", "only a nic has a network port");
    auto [it, inserted] = nameIndex.try_emplace(**deviceName, i);
    if (!inserted)
      return error(path + ".name", "duplicate device name '" + **deviceName +
                                       "' (also devices[" +
                                       llvm::Twine(it->second) + "])");
    byName[**deviceName] =
        machine.addDevice(*kind, **deviceName, 0, port->value_or(0));
  }

  // Links.
  const llvm::json::Value *linksValue = root->get("links");
  if (!linksValue)
    return error("", "missing field 'links'");
  const llvm::json::Array *links = linksValue->getAsArray();
  if (!links)
    return error("links", "expected an array, got " + describe(*linksValue));
  for (size_t i = 0; i < links->size(); ++i) {
    std::string path = "links[" + std::to_string(i) + "]";
    const llvm::json::Object *link = (*links)[i].getAsObject();
    if (!link)
      return error(path, "expected an object, got " + describe((*links)[i]));
    if (auto err = checkKeys(*link, path,
                             {"from", "to", "kind", "bandwidth_gbps",
                              "raw_gbps", "latency_us"}))
      return err;
    int ends[2];
    const char *endKeys[2] = {"from", "to"};
    for (int e = 0; e < 2; ++e) {
      auto endName = getString(*link, path, endKeys[e], true);
      if (!endName)
        return endName.takeError();
      auto found = byName.find(**endName);
      if (found == byName.end())
        return error(path + "." + endKeys[e],
                     "unknown device '" + **endName + "'");
      ends[e] = found->second;
    }
    if (ends[0] == ends[1])
      return error(path, "a link from '" +
                             machine.devices()[ends[0]].name + "' to itself");
    auto kindName = getString(*link, path, "kind", true);
    if (!kindName)
      return kindName.takeError();
    auto kind = parseLinkKind(**kindName);
    if (!kind)
      return error(path + ".kind", "unknown link kind '" + **kindName +
                                       "' (expected nvlink, pcie, smp or net)");
    auto bandwidth = getNumber(*link, path, "bandwidth_gbps", true, false);
    if (!bandwidth)
      return bandwidth.takeError();
    auto raw = getNumber(*link, path, "raw_gbps", false, false);
    if (!raw)
      return raw.takeError();
    auto latency = getNumber(*link, path, "latency_us", false, true);
    if (!latency)
      return latency.takeError();
    machine.connect(ends[0], ends[1], *kind, **bandwidth,
                    raw->value_or(**bandwidth), latency->value_or(0));
  }
  return finish(std::move(machine), file);
}

//===----------------------------------------------------------------------===//
// A small XML reader: elements, attributes, self-closing tags, comments,
// <?...?>, <!DOCTYPE>, CDATA (skipped), the five predefined entities and
// character references. Text content is ignored.
//===----------------------------------------------------------------------===//

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<int> children;
  size_t offset; ///< of the '<'

  const std::string *attribute(StringRef key) const {
    for (const auto &[k, v] : attributes)
      if (k == key)
        return &v;
    return nullptr;
  }
};

struct XmlDocument {
  std::vector<XmlElement> elements;
  int root = -1;
};

class XmlParser {
public:
  XmlParser(StringRef text, StringRef file) : text(text), file(file) {}

  llvm::Error parse(XmlDocument &doc);

private:
  StringRef text;
  StringRef file;
  size_t pos = 0;

  llvm::Error error(size_t offset, const llvm::Twine &message) {
    return failAt(file, text, offset, message);
  }
  bool startsWith(StringRef prefix) const {
    return text.substr(pos).starts_with(prefix);
  }
  void skipSpace() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  static bool isNameStart(char c) {
    return llvm::isAlpha(c) || c == '_' || c == ':' ||
           static_cast<unsigned char>(c) >= 0x80;
  }
  static bool isNameChar(char c) {
    return isNameStart(c) || llvm::isDigit(c) || c == '-' || c == '.';
  }
  StringRef readName() {
    size_t start = pos;
    if (pos < text.size() && isNameStart(text[pos]))
      while (pos < text.size() && isNameChar(text[pos]))
        ++pos;
    return text.slice(start, pos);
  }
  /// Skips to just past `terminator`; false at the end of the text.
  bool skipPast(StringRef terminator) {
    size_t end = text.find(terminator, pos);
    if (end == StringRef::npos)
      return false;
    pos = end + terminator.size();
    return true;
  }
  llvm::Error decode(StringRef raw, size_t offset, std::string &out);
  static std::string quoted(StringRef s) {
    std::string q = "'";
    for (char c : s.take_front(40))
      q += llvm::isPrint(c) ? c : '?';
    return q + (s.size() > 40 ? "...'" : "'");
  }
};

llvm::Error XmlParser::decode(StringRef raw, size_t offset, std::string &out) {
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '<')
      return error(offset + i, "'<' is not allowed in an attribute value");
    if (c != '&') {
      out += c;
      continue;
    }
    size_t semi = raw.find(';', i);
    if (semi == StringRef::npos || semi - i > 12)
      return error(offset + i, "'&' that does not start an entity (write &amp;)");
    StringRef entity = raw.slice(i + 1, semi);
    if (entity == "lt")
      out += '<';
    else if (entity == "gt")
      out += '>';
    else if (entity == "amp")
      out += '&';
    else if (entity == "quot")
      out += '"';
    else if (entity == "apos")
      out += '\'';
    else if (entity.starts_with("#")) {
      StringRef digits = entity.drop_front();
      unsigned radix = 10;
      if (digits.consume_front("x"))
        radix = 16;
      unsigned code = 0;
      if (digits.empty() || digits.getAsInteger(radix, code) || code == 0 ||
          code > 0x7f)
        return error(offset + i, "unsupported character reference '&" +
                                     entity + ";'");
      out += static_cast<char>(code);
    } else
      return error(offset + i, "unknown entity '&" + entity + ";'");
    i = semi;
  }
  return llvm::Error::success();
}

llvm::Error XmlParser::parse(XmlDocument &doc) {
  if (text.starts_with("\xEF\xBB\xBF"))
    pos = 3;
  std::vector<int> open;
  while (true) {
    // Text up to the next tag: only blanks outside the root.
    size_t lt = text.find('<', pos);
    size_t textEnd = lt == StringRef::npos ? text.size() : lt;
    if (open.empty()) {
      for (size_t i = pos; i < textEnd; ++i)
        if (!llvm::isSpace(text[i]))
          return error(i, doc.root < 0 ? "expected '<' (text before the root element)"
                                       : "text after the root element");
    }
    pos = textEnd;
    if (pos >= text.size())
      break;
    size_t start = pos;
    if (startsWith("<?")) {
      if (!skipPast("?>"))
        return error(start, "unterminated '<?' declaration");
      continue;
    }
    if (startsWith("<!--")) {
      pos += 4;
      if (!skipPast("-->"))
        return error(start, "unterminated comment");
      continue;
    }
    if (startsWith("<![CDATA[")) {
      if (open.empty())
        return error(start, "CDATA outside the root element");
      if (!skipPast("]]>"))
        return error(start, "unterminated CDATA section");
      continue;
    }
    if (startsWith("<!")) {
      if (!open.empty() || doc.root >= 0)
        return error(start, "'<!' declaration inside the document");
      if (!skipPast(">"))
        return error(start, "unterminated '<!' declaration");
      continue;
    }
    if (startsWith("</")) {
      pos += 2;
      StringRef name = readName();
      if (name.empty())
        return error(pos, "expected an element name after '</'");
      skipSpace();
      if (pos >= text.size() || text[pos] != '>')
        return error(pos, "expected '>' to close '</" + name + "'");
      ++pos;
      if (open.empty())
        return error(start, "closing tag '</" + name + ">' without an open element");
      const XmlElement &top = doc.elements[open.back()];
      if (top.name != name) {
        auto [line, col] = lineCol(text, top.offset);
        return error(start, "expected '</" + top.name + ">' (opened at " +
                                llvm::Twine(line) + ":" + llvm::Twine(col) +
                                "), found '</" + name + ">'");
      }
      open.pop_back();
      continue;
    }
    // A start tag.
    ++pos;
    StringRef name = readName();
    if (name.empty())
      return error(pos, "expected an element name after '<'");
    if (open.empty() && doc.root >= 0)
      return error(start, "a second root element '<" + name + ">'");
    if (static_cast<int>(open.size()) >= kMaxDepth)
      return error(start, "elements nested deeper than " +
                              llvm::Twine(kMaxDepth));
    XmlElement element;
    element.name = name.str();
    element.offset = start;
    bool selfClosing = false;
    while (true) {
      size_t before = pos;
      skipSpace();
      if (pos >= text.size())
        return error(start, "unterminated tag '<" + name + "'");
      if (startsWith("/>")) {
        pos += 2;
        selfClosing = true;
        break;
      }
      if (text[pos] == '>') {
        ++pos;
        break;
      }
      if (pos == before)
        return error(pos, "expected whitespace, '>' or '/>' in '<" + name +
                              "', found " + quoted(text.substr(pos, 1)));
      size_t attrStart = pos;
      StringRef key = readName();
      if (key.empty())
        return error(pos, "expected an attribute name in '<" + name +
                              "', found " + quoted(text.substr(pos, 1)));
      skipSpace();
      if (pos >= text.size() || text[pos] != '=')
        return error(pos, "expected '=' after attribute '" + key + "'");
      ++pos;
      skipSpace();
      if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\''))
        return error(pos, "expected a quoted value for attribute '" + key + "'");
      char quote = text[pos++];
      size_t valueStart = pos;
      size_t close = text.find(quote, pos);
      if (close == StringRef::npos)
        return error(valueStart - 1,
                     "unterminated value of attribute '" + key + "'");
      std::string value;
      if (auto err = decode(text.slice(valueStart, close), valueStart, value))
        return err;
      pos = close + 1;
      if (element.attribute(key))
        return error(attrStart, "duplicate attribute '" + key + "'");
      element.attributes.emplace_back(key.str(), std::move(value));
    }
    int index = static_cast<int>(doc.elements.size());
    doc.elements.push_back(std::move(element));
    if (open.empty())
      doc.root = index;
    else
      doc.elements[open.back()].children.push_back(index);
    if (!selfClosing)
      open.push_back(index);
  }
  if (!open.empty()) {
    const XmlElement &top = doc.elements[open.back()];
    auto [line, col] = lineCol(text, top.offset);
    return error(text.size(), "unexpected end of file: '<" + top.name +
                                  ">' opened at " + llvm::Twine(line) + ":" +
                                  llvm::Twine(col) + " is not closed");
  }
  if (doc.root < 0)
    return error(text.size(), "no root element");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// NCCL topology XML -> Machine
//===----------------------------------------------------------------------===//

/// NCCL's per-link NVLink bandwidth (topo.h, ncclTopoNVLinkBw).
double nvlinkBandwidth(int sm) {
  if (sm >= 100) return 40.1;
  if (sm >= 90) return 20.6;
  if (sm == 86) return 12.0;
  if (sm >= 80) return 20.0;
  if (sm >= 70) return 20.0;
  if (sm >= 60) return 18.0;
  return 20.0;
}

/// Raw NVLink bandwidth per link and direction: NVLink1 20, NVLink2-4 25,
/// NVLink5 50 GB/s.
double nvlinkRaw(int sm) {
  if (sm >= 100) return 50.0;
  if (sm >= 70) return 25.0;
  return 20.0;
}

Arch archOf(int sm) {
  if (sm < 80) return Arch::Volta;
  if (sm < 90) return Arch::Ampere;
  return Arch::Hopper;
}

/// NCCL's PCIe model: width x per-lane speed / 80 GB/s, with the per-lane
/// speed in 100 Mb/s units by generation (kvDictPciGen); unknown speeds
/// count as Gen3, a zero width as 16. Raw: the lane rate after line coding.
std::pair<double, double> pcieBandwidth(StringRef speedText, int width) {
  if (width == 0)
    width = 16;
  // The leading number of "16.0 GT/s PCIe", "8 GT/s", ...
  StringRef s = speedText.trim();
  size_t n = 0;
  while (n < s.size() && (llvm::isDigit(s[n]) || s[n] == '.'))
    ++n;
  double gts = 0;
  if (!llvm::to_float(s.take_front(n), gts))
    gts = 0;
  struct Gen {
    double gts, ncclSpeed, rawPerLane;
  };
  static const Gen gens[] = {
      {2.5, 15, 2.5 * 0.8 / 8},          {5, 30, 5 * 0.8 / 8},
      {8, 60, 8 * 128.0 / 130 / 8},      {16, 120, 16 * 128.0 / 130 / 8},
      {32, 240, 32 * 128.0 / 130 / 8},   {64, 480, 64 * 242.0 / 256 / 8}};
  const Gen *gen = &gens[2];
  for (const Gen &g : gens)
    if (std::abs(g.gts - gts) < 1e-6)
      gen = &g;
  return {width * gen->ncclSpeed / 80.0, width * gen->rawPerLane};
}

/// NCCL's inter-socket bandwidth for a <cpu> (ncclTopoGetInterCpuBw), 10
/// when unknown.
double interCpuBandwidth(const XmlElement &cpu) {
  auto get = [&](StringRef key) {
    const std::string *v = cpu.attribute(key);
    return v ? StringRef(*v).trim() : StringRef();
  };
  auto getInt = [&](StringRef key) -> std::optional<long long> {
    long long value;
    if (get(key).getAsInteger(0, value))
      return std::nullopt;
    return value;
  };
  StringRef arch = get("arch"), vendor = get("vendor");
  if (arch == "ppc64")
    return 32;
  if (arch == "arm64")
    return 6;
  if (arch != "x86_64")
    return 10;
  auto family = getInt("familyid"), model = getInt("modelid");
  if (vendor == "GenuineIntel") {
    if (!family || !model)
      return 10;
    return *family == 6 && *model >= 0x55 ? 10 : 6;
  }
  if (vendor == "AuthenticAMD")
    return 16;
  if (vendor == "CentaurHauls" || vendor == "Shanghai")
    return family && model && *family == 7 && *model == 0x5b ? 9 : 6;
  return 10;
}

class NcclTopologyReader {
public:
  NcclTopologyReader(StringRef text, StringRef file, const XmlDocument &doc)
      : text(text), file(file), doc(doc) {}

  llvm::Expected<Machine> read();

private:
  /// A device before it enters the machine (GPUs are added in rank order).
  struct Pending {
    Pending(DeviceKind kind, std::string name)
        : kind(kind), name(std::move(name)) {}
    DeviceKind kind;
    std::string name;
    double port = 0;
    int parent = -1; ///< pending index, joined by a pcie link
    double bandwidth = 0, raw = 0;
    // GPUs
    int element = -1;    ///< the <gpu>
    int pciElement = -1; ///< the <pci> around it
    int sm = 0;
    std::optional<long long> rank, dev;
    int cpu = -1; ///< pending index of the CPU above
  };

  StringRef text, file;
  const XmlDocument &doc;
  std::vector<Pending> pending;
  std::vector<int> cpus;          ///< pending indices of CPUs
  std::vector<double> cpuSmp;     ///< their inter-socket bandwidth
  std::vector<int> gpus;          ///< pending indices of GPUs, in file order
  int switches = 0, nics = 0;
  std::set<std::string> nicNames;

  const XmlElement &at(int index) const { return doc.elements[index]; }
  llvm::Error error(const XmlElement &element, const llvm::Twine &message) {
    return failAt(file, text, element.offset,
                  "<" + element.name + ">: " + message);
  }
  llvm::Expected<std::string> required(const XmlElement &element,
                                       StringRef key) {
    if (const std::string *v = element.attribute(key))
      return *v;
    return error(element, "missing attribute '" + key + "'");
  }
  /// An integer attribute; std::nullopt when absent and not required.
  llvm::Expected<std::optional<long long>>
  integer(const XmlElement &element, StringRef key, bool isRequired) {
    const std::string *v = element.attribute(key);
    if (!v) {
      if (isRequired)
        return error(element, "missing attribute '" + key + "'");
      return std::optional<long long>();
    }
    long long value;
    if (StringRef(*v).trim().getAsInteger(0, value))
      return error(element, "attribute '" + key + "' must be an integer, got '" +
                                *v + "'");
    return std::optional<long long>(value);
  }

  int add(Pending p) {
    pending.push_back(std::move(p));
    return static_cast<int>(pending.size()) - 1;
  }
  std::string uniqueNicName(std::string name) {
    if (name.empty())
      name = "nic" + std::to_string(nics);
    std::string candidate = name;
    for (int k = 1; nicNames.count(candidate); ++k)
      candidate = name + "#" + std::to_string(k);
    nicNames.insert(candidate);
    ++nics;
    return candidate;
  }

  llvm::Error addNets(const std::vector<int> &nicElements, int parent,
                      double bandwidth, double raw, bool portLink);
  llvm::Error addPci(int element, int parent, int cpu);
};

llvm::Error NcclTopologyReader::addNets(const std::vector<int> &nicElements,
                                        int parent, double bandwidth,
                                        double raw, bool portLink) {
  std::vector<int> nets;
  for (int n : nicElements)
    for (int c : at(n).children)
      if (at(c).name == "net")
        nets.push_back(c);
  if (nets.empty())
    return llvm::Error::success();
  // A card with several ports: one PCIe link, then one nic per port.
  if (nets.size() > 1 && !portLink) {
    Pending card(DeviceKind::PcieSwitch, "pcie" + std::to_string(switches++));
    card.parent = parent;
    card.bandwidth = bandwidth;
    card.raw = raw;
    parent = add(std::move(card));
  }
  for (int n : nets) {
    const XmlElement &net = at(n);
    auto speed = integer(net, "speed", true);
    if (!speed)
      return speed.takeError();
    // Mb/s; NCCL takes 10000 when a NIC reports <= 0.
    long long mbps = **speed > 0 ? **speed : 10000;
    const std::string *name = net.attribute("name");
    Pending nic(DeviceKind::Nic, uniqueNicName(name ? *name : ""));
    nic.port = mbps / 8000.0;
    nic.parent = parent;
    nic.bandwidth = portLink ? nic.port : bandwidth;
    nic.raw = portLink ? nic.port : raw;
    add(std::move(nic));
  }
  return llvm::Error::success();
}

llvm::Error NcclTopologyReader::addPci(int index, int parent, int cpu) {
  const XmlElement &pci = at(index);
  auto busid = required(pci, "busid");
  if (!busid)
    return busid.takeError();
  auto width = integer(pci, "link_width", false);
  if (!width)
    return width.takeError();
  if (*width && (**width < 0 || **width > 1024))
    return error(pci, "link_width must be between 0 and 1024, got " +
                          llvm::Twine(**width));
  const std::string *speed = pci.attribute("link_speed");
  auto [bandwidth, raw] =
      pcieBandwidth(speed ? StringRef(*speed) : StringRef(), width->value_or(0));

  std::vector<int> gpuElements, nicElements, pciElements;
  for (int c : pci.children) {
    StringRef name = at(c).name;
    if (name == "gpu")
      gpuElements.push_back(c);
    else if (name == "nic")
      nicElements.push_back(c);
    else if (name == "pci")
      pciElements.push_back(c);
  }

  if (!gpuElements.empty()) {
    if (gpuElements.size() > 1)
      return error(at(gpuElements[1]), "a second <gpu> in one <pci>");
    if (!nicElements.empty() || !pciElements.empty())
      return error(pci, "a <pci> holding a <gpu> cannot also hold a <nic> or "
                        "a <pci>");
    const XmlElement &gpu = at(gpuElements[0]);
    auto sm = integer(gpu, "sm", true);
    if (!sm)
      return sm.takeError();
    if (**sm <= 0 || **sm > 10000)
      return error(gpu, "attribute 'sm' must be a compute capability such as "
                        "80, got " + llvm::Twine(**sm));
    auto rank = integer(gpu, "rank", false);
    if (!rank)
      return rank.takeError();
    auto dev = integer(gpu, "dev", false);
    if (!dev)
      return dev.takeError();
    Pending p(DeviceKind::Gpu, "");
    p.parent = parent;
    p.bandwidth = bandwidth;
    p.raw = raw;
    p.element = gpuElements[0];
    p.pciElement = index;
    p.sm = static_cast<int>(**sm);
    p.rank = *rank;
    p.dev = *dev;
    p.cpu = cpu;
    gpus.push_back(add(std::move(p)));
    return llvm::Error::success();
  }
  if (!nicElements.empty()) {
    if (!pciElements.empty())
      return error(pci, "a <pci> holding a <nic> cannot also hold a <pci>");
    return addNets(nicElements, parent, bandwidth, raw, false);
  }
  if (!pciElements.empty()) {
    Pending sw(DeviceKind::PcieSwitch, "pcie" + std::to_string(switches++));
    sw.parent = parent;
    sw.bandwidth = bandwidth;
    sw.raw = raw;
    int self = add(std::move(sw));
    for (int c : pciElements)
      if (auto err = addPci(c, self, cpu))
        return err;
    return llvm::Error::success();
  }
  const std::string *cls = pci.attribute("class");
  if (cls && StringRef(*cls).trim().starts_with("0x03"))
    return error(pci, "a GPU (class " + *cls +
                          ") without a <gpu> element; ccopt needs the topology "
                          "NCCL dumps (NCCL_TOPO_DUMP_FILE), which describes "
                          "each GPU");
  return llvm::Error::success(); // another device: not part of the model
}

llvm::Expected<Machine> NcclTopologyReader::read() {
  const XmlElement &system = at(doc.root);
  if (system.name != "system")
    return failAt(file, text, system.offset,
                  "expected the root element <system>, found <" + system.name +
                      ">");

  // Devices, in the order of the file.
  for (int c : system.children) {
    const XmlElement &cpu = at(c);
    if (cpu.name != "cpu")
      continue;
    int self = add(Pending(DeviceKind::Cpu, "cpu" + std::to_string(cpus.size())));
    cpus.push_back(self);
    cpuSmp.push_back(interCpuBandwidth(cpu));
    std::vector<int> directNics;
    for (int d : cpu.children) {
      if (at(d).name == "pci") {
        if (auto err = addPci(d, self, self))
          return err;
      } else if (at(d).name == "nic")
        directNics.push_back(d);
    }
    // A NIC with no PCI path (a network plugin, a virtual NIC): NCCL joins it
    // to the CPU by a local link; the port bounds it.
    if (auto err = addNets(directNics, self, 0, 0, true))
      return err;
  }

  // Ranks: by `rank` when every GPU has a distinct one, else by `dev`, else
  // in the order listed.
  std::vector<int> order = gpus;
  auto distinct = [&](auto key) {
    std::set<long long> seen;
    for (int g : gpus) {
      auto v = key(pending[g]);
      if (!v || !seen.insert(*v).second)
        return false;
    }
    return true;
  };
  auto byRank = [](const Pending &p) { return p.rank; };
  auto byDev = [](const Pending &p) { return p.dev; };
  if (distinct(byRank))
    llvm::stable_sort(order, [&](int a, int b) {
      return *pending[a].rank < *pending[b].rank;
    });
  else if (distinct(byDev))
    llvm::stable_sort(order, [&](int a, int b) {
      return *pending[a].dev < *pending[b].dev;
    });

  Machine machine;
  machine.name = machineName(file);
  std::vector<int> deviceOf(pending.size(), -1);
  for (size_t r = 0; r < order.size(); ++r) {
    pending[order[r]].name = "gpu" + std::to_string(r);
    deviceOf[order[r]] =
        machine.addDevice(DeviceKind::Gpu, pending[order[r]].name, 0);
  }
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].kind != DeviceKind::Gpu)
      deviceOf[i] = machine.addDevice(pending[i].kind, pending[i].name, 0,
                                      pending[i].port);
  for (size_t i = 0; i < pending.size(); ++i)
    if (pending[i].parent >= 0)
      machine.connect(deviceOf[i], deviceOf[pending[i].parent], LinkKind::Pcie,
                      pending[i].bandwidth, pending[i].raw);
  for (size_t a = 0; a < cpus.size(); ++a)
    for (size_t b = a + 1; b < cpus.size(); ++b) {
      double bw = std::min(cpuSmp[a], cpuSmp[b]);
      machine.connect(deviceOf[cpus[a]], deviceOf[cpus[b]], LinkKind::Smp, bw,
                      bw);
    }

  // NVLinks. GPU busids first (NCCL compares them in lower case).
  std::map<std::string, int> gpuByBusId;
  for (int g : gpus) {
    int pciElement = pending[g].pciElement;
    std::string busid = StringRef(*at(pciElement).attribute("busid")).trim().lower();
    if (!gpuByBusId.emplace(busid, g).second)
      return failAt(file, text, at(pciElement).offset,
                    "<pci>: a second GPU with busid '" + busid + "'");
  }
  int nvswitch = -1;
  int minSm = 0;
  for (int g : gpus)
    minSm = minSm == 0 ? pending[g].sm : std::min(minSm, pending[g].sm);
  // Per GPU pair, the larger of the two directions' figures.
  std::map<std::pair<int, int>, std::pair<double, double>> pairs;
  for (int g : gpus) {
    const Pending &gpu = pending[g];
    // Links to the same target add up (as in ncclTopoConnectNodes).
    std::map<int, long long> counts; // target pending index, or -1: NVSwitch
    std::map<int, int> firstElement;
    for (int c : at(gpu.element).children) {
      const XmlElement &nvlink = at(c);
      if (nvlink.name != "nvlink")
        continue;
      auto target = required(nvlink, "target");
      if (!target)
        return target.takeError();
      auto count = integer(nvlink, "count", true);
      if (!count)
        return count.takeError();
      if (**count < 1 || **count > 1024)
        return error(nvlink, "attribute 'count' must be between 1 and 1024, got " +
                                 llvm::Twine(**count));
      const std::string *tclassAttr = nvlink.attribute("tclass");
      StringRef tclass = tclassAttr ? StringRef(*tclassAttr).trim() : "";
      std::string busid = StringRef(*target).trim().lower();
      int key;
      auto found = gpuByBusId.find(busid);
      if (found != gpuByBusId.end()) {
        if (found->second == g)
          return error(nvlink, "an NVLink from a GPU to itself");
        key = found->second;
      } else if (tclass.starts_with("0x03")) {
        continue; // a GPU outside the dump, as NCCL skips it
      } else if (tclass == "0x068000") {
        key = -1;
      } else if (tclass == "0x068001") {
        if (gpu.cpu < 0)
          continue;
        key = gpu.cpu;
      } else {
        return error(nvlink, "target '" + *target +
                                 "' is not a GPU in this file and tclass '" +
                                 tclass +
                                 "' is not an NVSwitch (0x068000) or a CPU "
                                 "(0x068001)");
      }
      counts[key] += **count;
      firstElement.try_emplace(key, c);
    }
    for (auto [key, count] : counts) {
      double bw = count * nvlinkBandwidth(gpu.sm);
      double raw = count * nvlinkRaw(gpu.sm);
      if (key == -1) {
        if (nvswitch < 0)
          nvswitch = machine.addDevice(DeviceKind::NvSwitch, "nvswitch", 0);
        machine.connect(deviceOf[g], nvswitch, LinkKind::NvLink, bw, raw);
      } else if (pending[key].kind == DeviceKind::Cpu) {
        machine.connect(deviceOf[g], deviceOf[key], LinkKind::NvLink, bw, raw);
      } else {
        auto &figures = pairs[{std::min(g, key), std::max(g, key)}];
        figures.first = std::max(figures.first, bw);
        figures.second = std::max(figures.second, raw);
      }
    }
  }
  for (auto &[pair, figures] : pairs)
    machine.connect(deviceOf[pair.first], deviceOf[pair.second],
                    LinkKind::NvLink, figures.first, figures.second);

  machine.arch = archOf(minSm);
  machine.nvls = minSm >= 90 && nvswitch >= 0;
  machine.channelBandwidth = defaultChannelBandwidth(machine.arch);
  return finish(std::move(machine), file);
}

} // namespace

llvm::Expected<Machine> ccopt::topo::parseTopologyJson(StringRef text,
                                                       StringRef fileName) {
  if (auto deep = tooDeepJson(text))
    return failAt(fileName, text, *deep,
                  "nested deeper than " + llvm::Twine(kMaxDepth) + " levels");
  auto value = llvm::json::parse(text);
  if (!value) {
    // llvm::json reports "[line:col, byte=N]: message"; say it our way.
    std::string message = llvm::toString(value.takeError());
    size_t offset = text.size();
    StringRef rest = message;
    size_t byteAt = rest.find("byte=");
    size_t colon = rest.find("]: ");
    if (byteAt != StringRef::npos && colon != StringRef::npos && byteAt < colon) {
      unsigned long long parsed;
      if (!rest.slice(byteAt + 5, colon).getAsInteger(10, parsed))
        offset = std::min<size_t>(parsed, text.size());
      rest = rest.drop_front(colon + 3);
      // Most of its errors come after it has read the offending character;
      // point at that character (at the end of the text nothing was read).
      if (rest != "Unexpected EOF" && rest != "Text after end of document" &&
          rest != "Invalid UTF-8 sequence" && offset > 0 &&
          offset < text.size())
        --offset;
    }
    return failAt(fileName, text, offset, rest);
  }
  return JsonReader(fileName).read(*value);
}

llvm::Expected<Machine> ccopt::topo::parseNcclTopologyXml(StringRef text,
                                                          StringRef fileName) {
  XmlDocument doc;
  if (auto err = XmlParser(text, fileName).parse(doc))
    return err;
  return NcclTopologyReader(text, fileName, doc).read();
}

llvm::Expected<Machine> ccopt::topo::loadTopologyFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail(path + ": cannot read the topology file: " +
                buffer.getError().message());
  StringRef text = (*buffer)->getBuffer();
  StringRef body = text;
  if (body.starts_with("\xEF\xBB\xBF"))
    body = body.drop_front(3);
  body = body.ltrim();
  // A byte-order mark is not JSON; XML handles its own.
  if (body.starts_with("{"))
    return parseTopologyJson(text.starts_with("\xEF\xBB\xBF") ? text.drop_front(3)
                                                             : text,
                             path);
  if (body.starts_with("<"))
    return parseNcclTopologyXml(text, path);
  if (body.empty())
    return fail(path + ": the topology file is empty");
  return fail(path + ": not a topology file: expected a JSON object ('{') or "
                     "NCCL topology XML ('<')");
}

llvm::Expected<Machine> ccopt::topo::loadMachine(llvm::StringRef preset,
                                                 llvm::StringRef file, int nodes) {
  if (nodes < 1)
    return llvm::createStringError("nodes must be at least 1, got %d", nodes);
  if (!preset.empty() && !file.empty())
    return llvm::createStringError("give a preset or a topology file, not both");
  if (!file.empty()) {
    auto node = loadTopologyFile(file);
    if (!node)
      return node.takeError();
    return replicate(*node, nodes);
  }
  if (auto machine = lookupPreset(preset, nodes))
    return std::move(*machine);
  std::string names;
  for (const std::string &name : presetNames())
    names += (names.empty() ? "" : ", ") + name;
  return llvm::createStringError("unknown machine '%s' (presets: %s)",
                                 preset.str().c_str(), names.c_str());
}
