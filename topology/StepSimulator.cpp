//===- StepSimulator.cpp - a training step: compute and communication -----===//

#include "topology/StepSimulator.h"

#include <algorithm>
#include <limits>

using namespace ccopt::topo;

StepResult ccopt::topo::simulateStep(llvm::ArrayRef<double> computeUs,
                                     llvm::ArrayRef<StepCollective> collectives,
                                     int64_t sms) {
  StepResult result;
  for (double t : computeUs)
    result.computeUs += t;
  for (const StepCollective &c : collectives)
    result.commUs += c.timeUs;
  const double inf = std::numeric_limits<double>::infinity();
  double now = 0;
  size_t event = 0;                                       // running compute event
  double work = computeUs.empty() ? 0 : computeUs[0];     // its work left (unslowed us)
  size_t next = 0;                                        // next collective to issue
  double commEnd = -1;                                    // end of the running one
  int64_t commChannels = 0;
  auto eventsDone = [&] { return static_cast<int64_t>(event); }; // events ended
  while (event < computeUs.size() || next < collectives.size() || commEnd > now) {
    // Issue the next collective when the stream is free and it is ready.
    if (commEnd <= now && next < collectives.size() &&
        collectives[next].readyAfter < eventsDone()) {
      commEnd = now + collectives[next].timeUs;
      commChannels = collectives[next].channels;
      ++next;
      continue;
    }
    bool commRunning = commEnd > now;
    double rate = 1.0;
    if (commRunning)
      rate = std::max<double>(sms - commChannels, 1) / static_cast<double>(sms);
    double computeDone = event < computeUs.size() ? now + work / rate : inf;
    double commDone = commRunning ? commEnd : inf;
    double t = std::min(computeDone, commDone);
    if (t == inf)
      break; // a collective waits for an event that never comes: cannot happen
    if (event < computeUs.size())
      work -= (t - now) * rate;
    now = t;
    if (event < computeUs.size() && computeDone <= commDone) {
      ++event;
      work = event < computeUs.size() ? computeUs[event] : 0;
    }
  }
  result.stepUs = std::max(now, commEnd);
  result.exposedUs = result.stepUs - result.computeUs;
  return result;
}

int64_t ccopt::topo::smCount(int arch) {
  switch (arch) {
  case 0: // Volta
    return 80;
  case 2: // Hopper
    return 132;
  default: // Ampere
    return 108;
  }
}
