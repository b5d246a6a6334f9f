// The knowledge tables (private to src/knowledge): the schema of each table
// and the parser that checks a YAML file against one (tables.cpp). The
// loader (knowledge.cpp) reads the files in Schemas() order and keeps the rows.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "imagelint/knowledge.h"

namespace imagelint::knowledge_tables {

enum class FieldType {
  kString, kVersion, kInt, kBool, kTri, kStringList, kIntList, kVersionList, kEnum, kEnumList, kUnconfirmed, kUrl,
  kUrlList, kDate
};

struct FieldSpec {
  const char* name;
  FieldType type;
  bool required;
  const char* enum_values = "";  // "a|b|c" for kEnum and kEnumList
};

struct TableSchema {
  KnowledgeTableInfo info;
  bool needs_source = true;
  std::vector<FieldSpec> fields;
};

// Bounds on a knowledge file (hostile input like any other).
inline constexpr size_t kMaxFileBytes = 8u << 20;
inline constexpr size_t kMaxRows = 100000;

// A knowledge file's text (at most kMaxFileBytes).
Result<std::string> ReadTableFile(const std::filesystem::path& path);

// Every table, in load order ("sources" first: the others cite its ids).
const std::vector<TableSchema>& Schemas();
const TableSchema* FindSchema(std::string_view kind);

// The YAML documents of a knowledge file (size, aliases and depth bounded).
Result<std::vector<YAML::Node>> LoadDocuments(std::string_view text, const std::string& file);

// The rows of `schema`'s table from the documents of its file, each checked
// against the schema (`source` ids against `source_ids`), with _file/_line.
Result<nlohmann::json> ParseDocuments(const TableSchema& schema, const std::string& file,
                                      const std::vector<std::string>& source_ids,
                                      const std::vector<YAML::Node>& documents);
// LoadDocuments + ParseDocuments.
Result<nlohmann::json> ParseTableText(const TableSchema& schema, const std::string& file,
                                      const std::vector<std::string>& source_ids, std::string_view text);

}  // namespace imagelint::knowledge_tables
