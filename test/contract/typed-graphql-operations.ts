/**
 * The GraphQL operations of the typed GraphQL client (typed-graphql-usage.ts):
 * typed-client-check.ts generates their result types from the served schema
 * with graphql-codegen, as a client developer would.
 */
export const operations = /* GraphQL */ `
  mutation ImportLead($leads: [LeadsImportLeadInput!]!) {
    leadsImport(leads: $leads) {
      created
    }
  }

  query RecentLeads {
    leadsList(limit: 5) {
      leads {
        id
        email
        status
        email_status
        created_at
      }
    }
  }

  mutation StartAgent($goal: String!) {
    agentsStart(goal: $goal) {
      run_id
      status
    }
  }

  query AgentRun($id: ID!) {
    agentsRun(id: $id) {
      status
      created_at
    }
  }

  mutation StartScrape($scraperId: ID!, $url: String!) {
    scrapersStart(scraperId: $scraperId, url: $url) {
      __typename
      ... on ScrapeAccepted {
        data {
          runId
          status
        }
      }
      ... on ScrapeCompleted {
        metadata {
          runId
        }
      }
    }
  }
`;
