// Fuzzes what the Redis support parses from outside: connection URLs (user
// input), filter metadata read from Redis (any client can write it), and
// server replies (CLUSTER SLOTS, MOVED/ASK errors) decoded by hiredis from
// raw RESP bytes. None may crash; bad input gives a Status or is refused.
#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "blockbloom/redis_client.h"
#include "src/redis_client/metadata.h"
#include "src/redis_client/router.h"

using namespace blockbloom::redis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1,
                               size - 1);
  switch (data[0] % 4) {
    case 0: {
      auto options = ParseUrl(input);
      if (options.ok() && (options->port < 1 || options->port > 65535)) {
        __builtin_trap();
      }
      break;
    }
    case 1: {
      auto metadata = internal::ParseMetadata(input, "fuzz");
      if (metadata.ok()) {
        // What parses is consistent and re-encodes to something that parses
        // the same.
        auto again = internal::ParseMetadata(
            internal::EncodeMetadata(*metadata), "fuzz");
        if (!again.ok() || again->shape != metadata->shape ||
            again->generation != metadata->generation) {
          __builtin_trap();
        }
      }
      break;
    }
    case 2: {
      // hiredis 0.14 allocates whatever element count a reply announces
      // (`*555555001` is 4.4 GB: it has no limit, unlike hiredis >= 1.0's
      // maxelements). That is hiredis trusting its server, not our parsing:
      // keep announced counts and lengths small.
      for (size_t i = 0; i + 7 < input.size(); ++i) {
        if (input[i] != '*' && input[i] != '$') continue;
        size_t digits = 0;
        while (i + 1 + digits < input.size() && input[i + 1 + digits] >= '0' &&
               input[i + 1 + digits] <= '9') {
          ++digits;
        }
        if (digits > 5) return 0;
      }
      redisReader* reader = redisReaderCreate();
      redisReaderFeed(reader, input.data(), input.size());
      void* reply = nullptr;
      while (redisReaderGetReply(reader, &reply) == REDIS_OK &&
             reply != nullptr) {
        auto ranges =
            internal::ParseClusterSlots(*static_cast<redisReply*>(reply));
        if (ranges.ok()) {
          for (const auto& r : *ranges) {
            if (r.first < 0 || r.last >= internal::kClusterSlots ||
                r.first > r.last) {
              __builtin_trap();
            }
          }
        }
        freeReplyObject(reply);
        reply = nullptr;
      }
      redisReaderFree(reader);
      break;
    }
    default: {
      auto redirect = internal::ParseRedirect(input);
      if (redirect.has_value() &&
          (redirect->slot < 0 || redirect->slot >= internal::kClusterSlots)) {
        __builtin_trap();
      }
      break;
    }
  }
  return 0;
}
