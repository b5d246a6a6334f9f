#include <doctest/doctest.h>

#include <string>

#include "imagelint/digest.h"
#include "imagelint/stream.h"

using namespace imagelint;

TEST_CASE("sha256 of known vectors, streamed and whole") {
  std::string abc = "abc";
  CHECK(Sha256Digest({reinterpret_cast<const uint8_t*>(abc.data()), abc.size()}) ==
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256 streamed;
  streamed.Update({reinterpret_cast<const uint8_t*>("a"), 1});
  streamed.Update({reinterpret_cast<const uint8_t*>("bc"), 2});
  CHECK(streamed.FinishDigest() == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("digest grammar follows the OCI descriptor rules") {
  CHECK(ValidateDigest("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad").ok());
  CHECK_FALSE(ValidateDigest("sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD").ok());
  CHECK_FALSE(ValidateDigest("sha256:abc").ok());
  CHECK_FALSE(ValidateDigest("sha256").ok());
  CHECK_FALSE(ValidateDigest(":abc").ok());
  CHECK(ValidateDigest("sha512:" + std::string(128, 'a')).ok());
  CHECK_FALSE(ValidateDigest("sha256:../../etc/passwd").ok());
}

TEST_CASE("ReadAll enforces its limit and names the stream") {
  auto stream = MemoryStream(std::vector<uint8_t>(100, 7), "blob sha256:x");
  auto all = ReadAll(*stream, 99);
  REQUIRE_FALSE(all.ok());
  CHECK(all.error().ToString().find("blob sha256:x") != std::string::npos);
  auto again = MemoryStream(std::vector<uint8_t>(100, 7), "b");
  CHECK(ReadAll(*again, 100)->size() == 100);
}
